// One switch of the distribution network (DN) fat tree, at a level where the subtree still has at least as many
// leaves as the tree has lanes. Each element carries the destination mask of the leaves below this switch; the
// switch forwards it to every child whose half of the mask is non-empty (multicast = a copy to both children).
//  - Pass (PER_LEAF_OUT = 0): each child also has IN_LANES lanes, so an element keeps its lane.
//  - Convert (PER_LEAF_OUT = 1): the children have fewer leaves than there are lanes, so from here down every
//    leaf owns one lane: output lane k carries the element for leaf k. Two elements for one leaf in one cycle
//    (which the controller must never send) raise `overflow`.
// One pipeline stage: outputs are registered.
module dn_switch #(
    parameter int IN_LANES     = 4,
    parameter int LEAVES       = 8,  // multiplier switches below this switch
    parameter int PER_LEAF_OUT = 0,
    parameter int DATA_W       = 16,
    // derived: lanes towards each child, and the mask width each child lane carries (1 when per-leaf)
    parameter int OUT_LANES    = PER_LEAF_OUT != 0 ? LEAVES / 2 : IN_LANES,
    parameter int OUT_MASK_W   = PER_LEAF_OUT != 0 ? 1 : LEAVES / 2
) (
    input  logic                                clk,
    input  logic                                rst,
    input  logic [ IN_LANES-1:0]  in_valid,
    input  logic [ IN_LANES-1:0]  in_weight,
    input  logic [    DATA_W-1:0] in_data     [IN_LANES],
    input  logic [    LEAVES-1:0] in_mask     [IN_LANES],
    output logic [OUT_LANES-1:0]  left_valid,
    output logic [OUT_LANES-1:0]  left_weight,
    output logic [    DATA_W-1:0] left_data   [OUT_LANES],
    output logic [OUT_MASK_W-1:0] left_mask   [OUT_LANES],
    output logic [OUT_LANES-1:0]  right_valid,
    output logic [OUT_LANES-1:0]  right_weight,
    output logic [    DATA_W-1:0] right_data  [OUT_LANES],
    output logic [OUT_MASK_W-1:0] right_mask  [OUT_LANES],
    output logic                                overflow,    // combinational, this cycle's input
    output logic [$clog2(IN_LANES+1)-1:0]       traversals   // valid elements entering this switch
);
  localparam int HALF = LEAVES / 2;

  assign traversals = $clog2(IN_LANES + 1)'($countones(in_valid));

  logic [OUT_LANES-1:0]  left_valid_d, right_valid_d;
  logic [OUT_LANES-1:0]  left_weight_d, right_weight_d;
  logic [    DATA_W-1:0] left_data_d  [OUT_LANES];
  logic [    DATA_W-1:0] right_data_d [OUT_LANES];
  logic [OUT_MASK_W-1:0] left_mask_d  [OUT_LANES];
  logic [OUT_MASK_W-1:0] right_mask_d [OUT_LANES];

  // Lanes are unpacked arrays and loops over them generate loops (static positions): with packed
  // [lanes][leaves] vectors, or a procedural loop over lanes, the Verilated model copies the whole wide mask
  // vector for every lane it reads (at 256 MS, 64 copies of 8 192 bits per switch and cycle).
  if (PER_LEAF_OUT == 0) begin : g_pass
    for (genvar i = 0; i < IN_LANES; i++) begin : g_lane
      assign left_valid_d[i]   = in_valid[i] && (in_mask[i][HALF-1:0] != '0);
      assign left_weight_d[i]  = in_weight[i];
      assign left_data_d[i]    = in_data[i];
      assign left_mask_d[i]    = in_mask[i][HALF-1:0];
      assign right_valid_d[i]  = in_valid[i] && (in_mask[i][LEAVES-1:HALF] != '0);
      assign right_weight_d[i] = in_weight[i];
      assign right_data_d[i]   = in_data[i];
      assign right_mask_d[i]   = in_mask[i][LEAVES-1:HALF];
    end
    assign overflow = 1'b0;
  end else begin : g_convert
    logic [DATA_W-1:0] lane_data[IN_LANES];
    logic [LEAVES-1:0] lane_mask[IN_LANES];
    logic [LEAVES-1:0] leaf_valid, leaf_weight, leaf_conflict;
    logic [DATA_W-1:0] leaf_data[LEAVES];
    assign lane_data = in_data;
    assign lane_mask = in_mask;
    // Lane by lane and, in a lane, destination by destination (lowest set mask bit first), so the work follows
    // the elements and destinations actually present: at most one per leaf, against LEAVES × IN_LANES mask bits
    // if every bit were tested (65 536 per switch and cycle at 1024 MS with 64 lanes). A later lane wins a
    // conflict, which is ambiguous anyway and raises the error flag.
    always_comb begin
      logic [LEAVES-1:0]         pending;
      logic [$clog2(LEAVES)-1:0] leaf;
      pending       = '0;
      leaf          = '0;
      leaf_valid    = '0;
      leaf_weight   = '0;
      leaf_conflict = '0;
      for (int k = 0; k < LEAVES; k++) leaf_data[k] = '0;
      for (int i = 0; i < IN_LANES; i++) begin
        if (in_valid[i]) begin
          leaf_conflict = leaf_conflict | (leaf_valid & lane_mask[i]);
          leaf_valid    = leaf_valid | lane_mask[i];
          pending       = lane_mask[i];
          while (pending != '0) begin
            // pending ^ (pending − 1): the lowest set bit and the zeros below it
            leaf              = $clog2(LEAVES)'($countones(pending ^ (pending - LEAVES'(1))) - 1);
            leaf_data[leaf]   = lane_data[i];
            leaf_weight[leaf] = in_weight[i];
            pending           = pending & (pending - LEAVES'(1));
          end
        end
      end
    end
    for (genvar k = 0; k < HALF; k++) begin : g_out
      assign left_valid_d[k]   = leaf_valid[k];
      assign left_weight_d[k]  = leaf_weight[k];
      assign left_data_d[k]    = leaf_data[k];
      assign left_mask_d[k]    = OUT_MASK_W'(leaf_valid[k]);
      assign right_valid_d[k]  = leaf_valid[HALF+k];
      assign right_weight_d[k] = leaf_weight[HALF+k];
      assign right_data_d[k]   = leaf_data[HALF+k];
      assign right_mask_d[k]   = OUT_MASK_W'(leaf_valid[HALF+k]);
    end
    assign overflow = |leaf_conflict;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      left_valid  <= '0;
      right_valid <= '0;
    end else begin
      left_valid  <= left_valid_d;
      right_valid <= right_valid_d;
    end
    left_weight  <= left_weight_d;
    left_data    <= left_data_d;
    left_mask    <= left_mask_d;
    right_weight <= right_weight_d;
    right_data   <= right_data_d;
    right_mask   <= right_mask_d;
  end

endmodule
