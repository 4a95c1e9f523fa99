// Distribution network (DN): a fat tree from DN_BW root lanes to NUM_MS leaves, one registered level per cycle
// (latency LEVELS cycles, no stalls). Every element carries its destination mask, one bit per leaf, which gives
// unicast and any multicast pattern without routing configuration.
//  - Upper levels, where a child subtree has at least DN_BW leaves: dn_switch in pass mode, DN_BW lanes per
//    switch; an element multicast to both halves is copied once per switch.
//  - The conversion level, where a child subtree first has fewer leaves than DN_BW: dn_switch in convert mode
//    puts the element for leaf k on lane k (a child has one lane per leaf from here down).
//  - Lower levels: each switch splits its per-leaf lanes between its children; this is pure wiring plus the
//    level's pipeline register, implemented as one register stage over all leaves of the level.
module distribution_network #(
    parameter int NUM_MS = 16,
    parameter int DN_BW  = 4,
    parameter int DATA_W = 16
) (
    input  logic                                 clk,
    input  logic                                 rst,
    input  logic [ DN_BW-1:0]                    root_valid,
    input  logic [ DN_BW-1:0]                    root_weight,
    input  logic [ DN_BW-1:0][       DATA_W-1:0] root_data,
    input  logic [ DN_BW-1:0][       NUM_MS-1:0] root_mask,
    output logic [NUM_MS-1:0]                    leaf_valid,
    output logic [NUM_MS-1:0]                    leaf_weight,
    output logic [NUM_MS-1:0][       DATA_W-1:0] leaf_data,
    output logic                                 overflow,    // two elements for one leaf in one cycle
    output logic [$clog2(NUM_MS*DN_BW+1)-1:0]    traversals   // element-lane arrivals at DN switches, this cycle
);
  localparam int LEVELS = $clog2(NUM_MS);
  localparam int COUNT_W = $clog2(NUM_MS * DN_BW + 1);

  // First level whose children have fewer leaves than DN_BW (LEVELS if there is none, i.e. DN_BW = 1).
  function automatic int conversion_level();
    for (int l = 0; l < LEVELS; l++) if ((NUM_MS >> (l + 1)) < DN_BW) return l;
    return LEVELS;
  endfunction
  localparam int CONVERT_AT = conversion_level();
  localparam int SWITCH_LEVELS = CONVERT_AT < LEVELS ? CONVERT_AT + 1 : LEVELS;

  for (genvar l = 0; l < SWITCH_LEVELS; l++) begin : g_level
    localparam int LEAVES = NUM_MS >> l;
    localparam int NODES = 1 << l;
    localparam int PER_LEAF_OUT = (l == CONVERT_AT) ? 1 : 0;
    localparam int OUT_LANES = PER_LEAF_OUT != 0 ? LEAVES / 2 : DN_BW;
    localparam int OUT_MASK_W = PER_LEAF_OUT != 0 ? 1 : LEAVES / 2;

    // Lanes unpacked (see dn_switch.sv: packed [lanes][leaves] vectors are copied whole per lane read).
    logic [DN_BW-1:0]                    in_valid  [NODES];
    logic [DN_BW-1:0]                    in_weight [NODES];
    logic [DATA_W-1:0]                   in_data   [NODES][DN_BW];
    logic [LEAVES-1:0]                   in_mask   [NODES][DN_BW];
    logic [OUT_LANES-1:0]                out_valid [2*NODES];
    logic [OUT_LANES-1:0]                out_weight[2*NODES];
    logic [DATA_W-1:0]                   out_data  [2*NODES][OUT_LANES];
    logic [OUT_MASK_W-1:0]               out_mask  [2*NODES][OUT_LANES];
    logic [NODES-1:0]                    node_overflow;
    logic [$clog2(DN_BW+1)-1:0]          node_traversals[NODES];
    logic [COUNT_W-1:0]                  traversals_through;  // this level and all above
    logic                                overflow_through;

    if (l == 0) begin : g_root
      assign in_valid[0]  = root_valid;
      assign in_weight[0] = root_weight;
      for (genvar i = 0; i < DN_BW; i++) begin : g_lane
        assign in_data[0][i] = root_data[i];
        assign in_mask[0][i] = root_mask[i];
      end
    end else begin : g_inner
      for (genvar j = 0; j < NODES; j++) begin : g_link
        assign in_valid[j]  = g_level[l-1].out_valid[j];
        assign in_weight[j] = g_level[l-1].out_weight[j];
        assign in_data[j]   = g_level[l-1].out_data[j];
        assign in_mask[j]   = g_level[l-1].out_mask[j];
      end
    end

    for (genvar j = 0; j < NODES; j++) begin : g_node
      dn_switch #(
          .IN_LANES    (DN_BW),
          .LEAVES      (LEAVES),
          .PER_LEAF_OUT(PER_LEAF_OUT),
          .DATA_W      (DATA_W)
      ) switch_i (
          .clk,
          .rst,
          .in_valid    (in_valid[j]),
          .in_weight   (in_weight[j]),
          .in_data     (in_data[j]),
          .in_mask     (in_mask[j]),
          .left_valid  (out_valid[2*j]),
          .left_weight (out_weight[2*j]),
          .left_data   (out_data[2*j]),
          .left_mask   (out_mask[2*j]),
          .right_valid (out_valid[2*j+1]),
          .right_weight(out_weight[2*j+1]),
          .right_data  (out_data[2*j+1]),
          .right_mask  (out_mask[2*j+1]),
          .overflow    (node_overflow[j]),
          .traversals  (node_traversals[j])
      );
    end

    logic [COUNT_W-1:0] level_traversals;
    always_comb begin
      level_traversals = '0;
      for (int j = 0; j < NODES; j++) level_traversals = level_traversals + COUNT_W'(node_traversals[j]);
    end
    if (l == 0) begin : g_first_sum
      assign traversals_through = level_traversals;
      assign overflow_through   = |node_overflow;
    end else begin : g_next_sum
      assign traversals_through = g_level[l-1].traversals_through + level_traversals;
      assign overflow_through   = g_level[l-1].overflow_through || (|node_overflow);
    end
  end

  // Output of the last switch level, one lane per leaf (the mask bit is 1 exactly when the lane is valid).
  localparam int LAST = SWITCH_LEVELS - 1;
  logic [NUM_MS-1:0]             switched_valid, switched_weight;
  logic [NUM_MS-1:0][DATA_W-1:0] switched_data;
  for (genvar c = 0; c < 2 * (1 << LAST); c++) begin : g_gather
    localparam int WIDTH = NUM_MS / (2 * (1 << LAST));  // leaves per child of the last switch level
    for (genvar k = 0; k < WIDTH; k++) begin : g_lane
      assign switched_valid[c*WIDTH+k]  = g_level[LAST].out_valid[c][k] && g_level[LAST].out_mask[c][k][0];
      assign switched_weight[c*WIDTH+k] = g_level[LAST].out_weight[c][k];
      assign switched_data[c*WIDTH+k]   = g_level[LAST].out_data[c][k];
    end
  end

  // Per-leaf levels below the conversion: one register stage each.
  localparam int SPLIT_LEVELS = LEVELS - SWITCH_LEVELS;
  if (SPLIT_LEVELS == 0) begin : g_no_split
    assign leaf_valid  = switched_valid;
    assign leaf_weight = switched_weight;
    assign leaf_data   = switched_data;
    assign traversals  = g_level[LAST].traversals_through;
  end else begin : g_split
    // The split levels only delay the per-leaf lanes, SPLIT_LEVELS cycles in all: a ring of SPLIT_LEVELS entries
    // written and read at `pointer` (the entry written SPLIT_LEVELS clocks ago) moves one entry per clock instead
    // of shifting every level's NUM_MS lanes. Entry age a+1 is what the shift register's stage a held.
    localparam int POINTER_W = SPLIT_LEVELS > 1 ? $clog2(SPLIT_LEVELS) : 1;
    logic [NUM_MS-1:0]             valid_ring [SPLIT_LEVELS];
    logic [NUM_MS-1:0]             weight_ring[SPLIT_LEVELS];
    logic [NUM_MS-1:0][DATA_W-1:0] data_ring  [SPLIT_LEVELS];
    logic [COUNT_W-1:0]            count_ring [SPLIT_LEVELS];  // valid lanes of each entry
    logic [POINTER_W-1:0]          pointer;
    logic [COUNT_W-1:0]            switched_count, split_traversals;

    assign switched_count = COUNT_W'($countones(switched_valid));
    always_ff @(posedge clk) begin
      if (rst) begin
        pointer <= '0;
        for (int s = 0; s < SPLIT_LEVELS; s++) begin
          valid_ring[s] <= '0;
          count_ring[s] <= '0;
        end
      end else begin
        pointer             <= 32'(pointer) == SPLIT_LEVELS - 1 ? '0 : pointer + POINTER_W'(1);
        valid_ring[pointer] <= switched_valid;
        count_ring[pointer] <= switched_count;
      end
      weight_ring[pointer] <= switched_weight;
      data_ring[pointer]   <= switched_data;
    end
    // Elements entering the split levels' switches this cycle: the per-leaf lanes at their inputs, i.e. this
    // cycle's switched lanes and every ring entry but the oldest (which leaves for the multiplier switches).
    always_comb begin
      split_traversals = switched_count;
      for (int s = 0; s < SPLIT_LEVELS; s++)
        if (s != 32'(pointer)) split_traversals = split_traversals + count_ring[s];
    end
    assign leaf_valid  = valid_ring[pointer];
    assign leaf_weight = weight_ring[pointer];
    assign leaf_data   = data_ring[pointer];
    assign traversals  = g_level[LAST].traversals_through + split_traversals;
  end

  assign overflow = g_level[LAST].overflow_through;
endmodule
