// Reduction network (RN): MAERI's augmented reduction tree. NUM_MS−1 adder switches form a binary tree over the
// multiplier switches' products, one level per cycle; forwarding links join each pair of neighbouring adders of
// a level that have different parents (odd j and j+1). With the words from the ART compiler, any row of
// contiguous VNs of any sizes reduces in one pass. Finished results sit in emit slots (2·adder + side), all
// aligned to the same cycle: `out_wave` marks the cycle in which the slots hold the results of one step, LEVELS
// cycles after `in_wave` (products valid). A new step can enter every cycle.
module reduction_network
  import maeri_config_pkg::*;
#(
    parameter int NUM_MS = 16,
    parameter int ACC_W  = 32
) (
    input  logic                                    clk,
    input  logic                                    rst,
    input  adder_switch_config_t [NUM_MS-2:0]       adder_config,
    input  logic                 [ ACC_W-1:0]       leaf_value[NUM_MS],  // unpacked: see maeri_top.sv
    input  logic                                    in_wave,
    output logic                 [ ACC_W-1:0]       slot_value[2*(NUM_MS-1)],
    output logic                                    out_wave,
    output logic                                    in_flight,    // some step is inside the tree
    // wave[l]: a step's values are at the inputs of level l this cycle (its activity is counted then:
    // step_activity.sv)
    output logic                 [$clog2(NUM_MS)-1:0] wave
);
  localparam int LEVELS = $clog2(NUM_MS);

  // Level LEVELS-1 sees the products; delayed[k] is in_wave delayed by k+1 cycles.
  logic [LEVELS-1:0] delayed;
  always_ff @(posedge clk) begin
    if (rst) begin
      delayed <= '0;
    end else begin
      delayed[0] <= in_wave;
      for (int k = 1; k < LEVELS; k++) delayed[k] <= delayed[k-1];
    end
  end
  for (genvar l = 0; l < LEVELS; l++) begin : g_wave
    if (l == LEVELS - 1) begin : g_products
      assign wave[l] = in_wave;
    end else begin : g_delayed
      assign wave[l] = delayed[LEVELS-2-l];
    end
  end
  assign out_wave = delayed[LEVELS-1];
  assign in_flight = (|delayed) || in_wave;

  for (genvar l = 0; l < LEVELS; l++) begin : g_level
    localparam int NODES = 1 << l;
    localparam int BASE = NODES - 1;  // heap index of the level's first adder

    logic [ACC_W-1:0] child_value[2*NODES];
    // The root's up value has no parent and edge adders' link outputs have no partner: unused by design.
    /* verilator lint_off UNUSEDSIGNAL */
    logic [ACC_W-1:0] up_value   [NODES];
    logic [ACC_W-1:0] link_out   [NODES];
    /* verilator lint_on UNUSEDSIGNAL */

    // The ring position of the level's emit delay (adder_switch.sv): l cycles deep, advanced every clock.
    localparam int POINTER_W = l > 1 ? $clog2(l) : 1;
    logic [POINTER_W-1:0] emit_pointer;
    if (l > 1) begin : g_pointer
      always_ff @(posedge clk) begin
        if (rst || 32'(emit_pointer) == l - 1) emit_pointer <= '0;
        else emit_pointer <= emit_pointer + POINTER_W'(1);
      end
    end else begin : g_no_pointer
      assign emit_pointer = '0;
    end

    for (genvar c = 0; c < 2 * NODES; c++) begin : g_child
      if (l == LEVELS - 1) begin : g_from_ms
        assign child_value[c] = leaf_value[c];
      end else begin : g_from_adder
        assign child_value[c] = g_level[l+1].up_value[c];
      end
    end

    for (genvar j = 0; j < NODES; j++) begin : g_adder
      localparam int IS_ODD = j % 2;
      localparam int PARTNER = (IS_ODD != 0) ? j + 1 : j - 1;
      logic [ACC_W-1:0] link_in_value;
      logic             link_in_valid;
      if (PARTNER >= 0 && PARTNER < NODES) begin : g_linked
        assign link_in_value = link_out[PARTNER];
        assign link_in_valid = adder_config[BASE+PARTNER].link_send;
      end else begin : g_edge
        assign link_in_value = '0;
        assign link_in_valid = 1'b0;
      end
      adder_switch #(
          .ACC_W     (ACC_W),
          .IS_ODD    (IS_ODD),
          .EMIT_DELAY(l)
      ) adder_i (
          .clk,
          .rst,
          .emit_pointer,
          .config_word     (adder_config[BASE+j]),
          .left_value      (child_value[2*j]),
          .right_value     (child_value[2*j+1]),
          .link_in_value,
          .link_in_valid,
          .link_out_value  (link_out[j]),
          .up_value        (up_value[j]),
          .emit_left_value (slot_value[2*(BASE+j)]),
          .emit_right_value(slot_value[2*(BASE+j)+1])
      );
    end
  end
endmodule
