// maeri_top: the MAERI fabric — distribution network (DN) fat tree, multiplier network (MN), augmented reduction
// tree (RN), output collector, config port and activity counters. Block diagram, latencies and the protocol of
// every port are in docs/rtl.md; the configuration words in docs/config-bits.md.
//
// Root beats: each cycle the controller may present up to DN_BW elements (value, weight/operand flag,
// destination mask) and, on the last beat of a step, `dn_fire` (optionally with `dn_fire_forward`). Beats without
// fire are always accepted. A beat with fire is accepted only while `dn_ready` is high: fires are spaced by
// ceil(vn_count / RN_BW) cycles so that the collector drains each step's results before the next arrives.
module maeri_top
  import maeri_config_pkg::*;
#(
    parameter int NUM_MS    = 64,
    parameter int DN_BW     = 16,
    parameter int RN_BW     = 16,
    parameter int DATA_W    = 16,
    parameter int ACC_W     = 32,
    parameter int CONFIG_BW = 64,  // configuration bits written per cycle (docs/config-bits.md)
    parameter int COUNTER_W = 64
) (
    input  logic                                       clk,
    input  logic                                       rst,            // synchronous, active high
    // Config port: word cfg_address of the dense configuration
    input  logic                                       cfg_write,
    input  logic [config_address_bits(NUM_MS, CONFIG_BW)-1:0] cfg_address,
    input  logic [ CONFIG_BW-1:0]                      cfg_data,
    // Distribution network root
    input  logic [ DN_BW-1:0]                          dn_valid,
    input  logic [ DN_BW-1:0]                          dn_weight,
    input  logic [ DN_BW-1:0][     DATA_W-1:0]         dn_data,
    input  logic [ DN_BW-1:0][     NUM_MS-1:0]         dn_mask,
    input  logic                                       dn_fire,
    input  logic                                       dn_fire_forward,
    output logic                                       dn_ready,
    // Results
    output logic [ RN_BW-1:0]                          out_valid,
    output logic [ RN_BW-1:0][$clog2(NUM_MS)-1:0]      out_vn,
    output logic [ RN_BW-1:0][      ACC_W-1:0]         out_value,
    // Status: busy while any step is in flight; sticky errors until reset
    output logic                                       busy,
    output logic                                       error_dn_overflow,
    output logic                                       error_collector_overrun,
    output logic                                       error_config,
    // Activity counters: counts[c] for c of maeri_config_pkg::activity_counter_e
    input  logic                                       counters_clear,
    output logic [NUM_ACTIVITY_COUNTERS-1:0][COUNTER_W-1:0] counts
);
  localparam int LEVELS = $clog2(NUM_MS);
  localparam int EVENT_W = $clog2(3 * NUM_MS * DN_BW + 1) + 1;

  if (NUM_MS < 2 || (NUM_MS & (NUM_MS - 1)) != 0) begin : g_bad_num_ms
    $error("NUM_MS must be a power of two >= 2");
  end
  if (DN_BW < 1 || DN_BW > NUM_MS || RN_BW < 1 || RN_BW > NUM_MS) begin : g_bad_bandwidth
    $error("DN_BW and RN_BW must be between 1 and NUM_MS");
  end
  if (ACC_W < DATA_W || ACC_W > 64 || DATA_W < 2) begin : g_bad_width
    $error("need 2 <= DATA_W <= ACC_W <= 64");
  end
  if (CONFIG_BW < 16 || CONFIG_BW > 512 || (CONFIG_BW & (CONFIG_BW - 1)) != 0) begin : g_bad_config_bw
    $error("CONFIG_BW must be a power of two in 16 ... 512");
  end

  // ---------------------------------------------------------------- configuration
  mult_switch_config_t  [NUM_MS-1:0] mult_config;
  adder_switch_config_t [NUM_MS-2:0] adder_config;
  localparam int VN_COUNT_W = vn_count_bits(NUM_MS);
  localparam int INTERVAL_W = VN_COUNT_W + 1;
  logic [NUM_MS-1:0][collector_slot_bits(NUM_MS)-1:0] collector_slots;
  logic [VN_COUNT_W-1:0]             vn_count;
  logic                              bad_config_write, config_written;

  config_registers #(
      .NUM_MS   (NUM_MS),
      .CONFIG_BW(CONFIG_BW)
  ) config_i (
      .clk,
      .rst,
      .write    (cfg_write),
      .address  (cfg_address),
      .data     (cfg_data),
      .mult_config,
      .adder_config,
      .vn_count,
      .collector_slots,
      .bad_write(bad_config_write),
      .written  (config_written)
  );

  // ---------------------------------------------------------------- fire spacing and root acceptance
  logic [INTERVAL_W-1:0] fire_interval;  // cycles a step occupies the output lanes, at least 1
  logic [INTERVAL_W-1:0] since_fire;     // cycles since the last accepted fire, saturating
  logic        fire_accepted;
  logic        beat_accepted;

  always_ff @(posedge clk) begin
    if (rst) fire_interval <= INTERVAL_W'(1);
    else if (32'(vn_count) <= RN_BW) fire_interval <= INTERVAL_W'(1);
    else fire_interval <= INTERVAL_W'((32'(vn_count) + RN_BW - 1) / RN_BW);
  end

  assign dn_ready      = since_fire >= fire_interval;
  assign beat_accepted = !dn_fire || dn_ready;
  assign fire_accepted = dn_fire && dn_ready;

  always_ff @(posedge clk) begin
    if (rst) since_fire <= '1;
    else if (fire_accepted) since_fire <= INTERVAL_W'(1);
    else if (since_fire != '1) since_fire <= since_fire + INTERVAL_W'(1);
  end

  // The fire travels beside the data: LEVELS stages, like one DN level each.
  logic [LEVELS-1:0] fire_pipe, forward_pipe;
  always_ff @(posedge clk) begin
    if (rst) begin
      fire_pipe    <= '0;
      forward_pipe <= '0;
    end else begin
      fire_pipe[0]    <= fire_accepted;
      forward_pipe[0] <= fire_accepted && dn_fire_forward;
      for (int k = 1; k < LEVELS; k++) begin
        fire_pipe[k]    <= fire_pipe[k-1];
        forward_pipe[k] <= forward_pipe[k-1];
      end
    end
  end

  // ---------------------------------------------------------------- distribution network
  logic [NUM_MS-1:0]             leaf_valid, leaf_weight;
  logic [DATA_W-1:0]             leaf_data[NUM_MS];
  logic                          dn_overflow;
  logic [$clog2(NUM_MS*DN_BW+1)-1:0] dn_traversals;

  distribution_network #(
      .NUM_MS(NUM_MS),
      .DN_BW (DN_BW),
      .DATA_W(DATA_W)
  ) dn_i (
      .clk,
      .rst,
      .root_valid (dn_valid & {DN_BW{beat_accepted}}),
      .root_weight(dn_weight),
      .root_data  (dn_data),
      .root_mask  (dn_mask),
      .leaf_valid,
      .leaf_weight,
      .leaf_data,
      .overflow   (dn_overflow),
      .traversals (dn_traversals)
  );

  // ---------------------------------------------------------------- multiplier and reduction networks
  logic [ACC_W-1:0]  slot_value[2*(NUM_MS-1)];
  logic              result_wave, arithmetic_in_flight;
  logic [LEVELS-1:0] rn_wave;

  arithmetic_networks #(
      .NUM_MS(NUM_MS),
      .DATA_W(DATA_W),
      .ACC_W (ACC_W)
  ) arithmetic_i (
      .clk,
      .rst,
      .config_written,
      .mult_config,
      .adder_config,
      .leaf_valid,
      .leaf_weight,
      .leaf_data,
      .fire        (fire_pipe[LEVELS-1]),
      .fire_forward(forward_pipe[LEVELS-1]),
      .slot_value,
      .out_wave    (result_wave),
      .in_flight   (arithmetic_in_flight),
      .wave        (rn_wave)
  );

  logic draining, overrun;
  output_collector #(
      .NUM_MS(NUM_MS),
      .RN_BW (RN_BW),
      .ACC_W (ACC_W)
  ) collector_i (
      .clk,
      .rst,
      .slot_value,
      .in_wave(result_wave),
      .vn_count,
      .collector_slots,
      .out_valid,
      .out_vn,
      .out_value,
      .draining,
      .overrun
  );

  // Busy until the last results have left the lanes (and so have been counted).
  assign busy = (|fire_pipe) || arithmetic_in_flight || draining || (|out_valid);

  // ---------------------------------------------------------------- activity of the configured networks
  localparam int MS_W = $clog2(NUM_MS + 1);
  localparam int ADD_W = $clog2(2 * NUM_MS + 1);
  localparam int TRAV_W = $clog2(3 * NUM_MS + 1);
  logic [MS_W-1:0]   active_count, forward_count;
  logic [ADD_W-1:0]  level_additions [LEVELS];
  logic [TRAV_W-1:0] level_traversals[LEVELS];

  step_activity #(
      .NUM_MS(NUM_MS)
  ) activity_i (
      .clk,
      .rst,
      .config_written,
      .mult_config,
      .adder_config,
      .active_count,
      .forward_count,
      .level_additions,
      .level_traversals
  );

  // This cycle's MN events (a fire at the switches) and RN events (the levels a step's values are entering).
  logic [MS_W-1:0]   multiplied_count, forwarded_count;
  logic [ADD_W-1:0]  rn_additions;
  logic [TRAV_W-1:0] rn_traversals;
  assign multiplied_count = fire_pipe[LEVELS-1] ? active_count : '0;
  assign forwarded_count  = fire_pipe[LEVELS-1] && forward_pipe[LEVELS-1] ? forward_count : '0;
  always_comb begin
    rn_additions  = '0;
    rn_traversals = '0;
    for (int l = 0; l < LEVELS; l++) begin
      if (rn_wave[l]) begin
        rn_additions  = rn_additions + level_additions[l];
        rn_traversals = rn_traversals + level_traversals[l];
      end
    end
  end

  // ---------------------------------------------------------------- errors and counters
  always_ff @(posedge clk) begin
    if (rst) begin
      error_dn_overflow       <= 1'b0;
      error_collector_overrun <= 1'b0;
      error_config            <= 1'b0;
    end else begin
      if (dn_overflow) error_dn_overflow <= 1'b1;
      if (overrun) error_collector_overrun <= 1'b1;
      // Reconfiguring a fabric that still has a step in flight would corrupt that step; a step with more VN
      // results than switches cannot come from a valid configuration.
      if (bad_config_write || (cfg_write && busy) || (fire_accepted && 32'(vn_count) > NUM_MS)) error_config <= 1'b1;
    end
  end

  // Each counter's events in this cycle, at its index of the package enum ('0 first, so a counter added to the
  // enum reads zero until its event source is wired here).
  logic [NUM_ACTIVITY_COUNTERS-1:0][EVENT_W-1:0] events;
  always_comb begin
    events                        = '0;
    events[COUNT_CYCLES]          = EVENT_W'(1);
    events[COUNT_FIRES]           = EVENT_W'(fire_pipe[LEVELS-1]);
    events[COUNT_MULTIPLICATIONS] = EVENT_W'(multiplied_count);
    events[COUNT_ADDITIONS]       = EVENT_W'(rn_additions);
    events[COUNT_DN_TRAVERSALS]   = EVENT_W'(dn_traversals);
    events[COUNT_RN_TRAVERSALS]   = EVENT_W'(rn_traversals);
    events[COUNT_MN_FORWARDS]     = EVENT_W'(forwarded_count);
    events[COUNT_RESULTS]         = EVENT_W'($countones(out_valid));
  end

  activity_counters #(
      .COUNTER_W(COUNTER_W),
      .IN_W     (EVENT_W)
  ) counters_i (
      .clk,
      .rst,
      .clear (counters_clear),
      .events,
      .counts
  );
endmodule
