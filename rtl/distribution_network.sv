// Distribution network (DN): a fat tree from DN_BW root lanes to NUM_MS leaves, one registered level per cycle
// (latency LEVELS cycles, no stalls). Every element carries its destination mask, one bit per leaf, which gives
// unicast and any multicast pattern without routing configuration. The tree's levels (docs/rtl.md, "Networks"):
//  - Pass levels, where a child subtree has at least DN_BW leaves: DN_BW lanes per switch; an element keeps its
//    lane and goes to every child whose half of its mask is non-empty (multicast = a copy to both children).
//  - The scatter (conversion) level, where a child subtree first has fewer leaves than DN_BW (the last level
//    when DN_BW = 1): the switch puts the element for leaf k on lane k, one lane per leaf from here down. Two
//    elements for one leaf in one cycle (which the controller must never send) raise `overflow`; the later lane
//    wins.
//  - Split levels below it: each switch splits its per-leaf lanes between its children, pure wiring plus the
//    level's pipeline register.
// A pass switch only delays its elements and halves their masks, so the pass levels are implemented as one
// delay line of whole root beats (an element's mask slice at a level is a slice of its root mask), and the
// traversals the levels would count are counted from the root beat and released in the cycles the element
// reaches each level; the scatter level walks the beat's destinations once, writing only the data lanes of leaves
// that receive an element (a leaf's data lane holds its last element while its valid bit is low); the split
// levels are a ring.
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
    output logic [DATA_W-1:0]                    leaf_data[NUM_MS],  // unpacked: see maeri_top.sv
    output logic                                 overflow,    // two elements for one leaf in one cycle
    output logic [$clog2(NUM_MS*DN_BW+1)-1:0]    traversals   // element-lane arrivals at DN switches, this cycle
);
  localparam int LEVELS = $clog2(NUM_MS);
  localparam int COUNT_W = $clog2(NUM_MS * DN_BW + 1);

  // The scatter level: the first whose children have fewer leaves than DN_BW, or the last level.
  function automatic int scatter_level();
    for (int l = 0; l < LEVELS - 1; l++) if ((NUM_MS >> (l + 1)) < DN_BW) return l;
    return LEVELS - 1;
  endfunction
  localparam int SCATTER_AT = scatter_level();
  localparam int SLICES = 1 << SCATTER_AT;         // switches of the scatter level
  localparam int SLICE_W = NUM_MS >> SCATTER_AT;   // leaves below each of them
  localparam int RING = LEVELS - SCATTER_AT;       // register stages from the scatter level to the leaves
  localparam int CHUNK = NUM_MS < 64 ? NUM_MS : 64;
  // MULTIPLES[k]: the scatter level's switches j with j a multiple of 2^k (a constant: Verilator evaluates a
  // function called in a loop at run time).
  function automatic logic [SCATTER_AT:0][SLICES-1:0] multiples_of_powers();
    logic [SCATTER_AT:0][SLICES-1:0] bits;
    bits = '0;
    for (int k = 0; k <= SCATTER_AT; k++)
      for (int j = 0; j < SLICES; j += 1 << k) bits[k][j] = 1'b1;
    return bits;
  endfunction
  localparam logic [SCATTER_AT:0][SLICES-1:0] MULTIPLES = multiples_of_powers();

  // The scatter level's input: the root beat delayed SCATTER_AT cycles, lanes unpacked (a packed
  // [lanes][leaves] vector read lane by lane in a loop is copied whole per read).
  logic [DN_BW-1:0]  scatter_valid, scatter_weight;
  logic [DATA_W-1:0] scatter_data[DN_BW];
  logic [NUM_MS-1:0] scatter_mask[DN_BW];
  logic [COUNT_W-1:0] switch_traversals;  // element-lane arrivals at the switch levels, this cycle
  logic [COUNT_W-1:0] root_traversals;
  assign root_traversals = COUNT_W'($countones(root_valid));

  if (SCATTER_AT == 0) begin : g_no_pass
    for (genvar i = 0; i < DN_BW; i++) begin : g_lane
      assign scatter_data[i] = root_data[i];
      assign scatter_mask[i] = root_mask[i];
    end
    assign scatter_valid     = root_valid;
    assign scatter_weight    = root_weight;
    assign switch_traversals = root_traversals;
  end else begin : g_pass
    // ---------------------------------------------------------------- pass levels: the root beat, delayed
    // Stage 0 is the root switch's register, written lane by lane from constant slices of the ports, so nothing
    // but the root's own count is evaluated from the inputs (Verilator re-evaluates input logic on every edge).
    logic [DN_BW-1:0]  stage0_valid, stage0_weight;
    logic [DATA_W-1:0] stage0_data[DN_BW];
    logic [NUM_MS-1:0] stage0_mask[DN_BW];
    // A lane's value and mask are taken only with an element (every later reader looks at valid lanes only).
    for (genvar i = 0; i < DN_BW; i++) begin : g_lane
      always_ff @(posedge clk) begin
        if (root_valid[i]) begin
          stage0_data[i] <= root_data[i];
          stage0_mask[i] <= root_mask[i];
        end
      end
    end
    always_ff @(posedge clk) begin
      if (rst) stage0_valid <= '0;
      else stage0_valid <= root_valid;
      stage0_weight <= root_weight;
    end

    if (SCATTER_AT == 1) begin : g_one_stage
      assign scatter_valid  = stage0_valid;
      assign scatter_weight = stage0_weight;
      assign scatter_data   = stage0_data;
      assign scatter_mask   = stage0_mask;
    end else begin : g_stages
      logic [DN_BW-1:0]  valid_q [SCATTER_AT-1];
      logic [DN_BW-1:0]  weight_q[SCATTER_AT-1];
      logic [DATA_W-1:0] data_q  [SCATTER_AT-1][DN_BW];
      logic [NUM_MS-1:0] mask_q  [SCATTER_AT-1][DN_BW];
      always_ff @(posedge clk) begin
        if (rst) begin
          for (int s = 0; s < SCATTER_AT - 1; s++) valid_q[s] <= '0;
        end else begin
          valid_q[0] <= stage0_valid;
          for (int s = 1; s < SCATTER_AT - 1; s++) valid_q[s] <= valid_q[s-1];
        end
        weight_q[0] <= stage0_weight;
        data_q[0]   <= stage0_data;
        mask_q[0]   <= stage0_mask;
        for (int s = 1; s < SCATTER_AT - 1; s++) begin
          weight_q[s] <= weight_q[s-1];
          data_q[s]   <= data_q[s-1];
          mask_q[s]   <= mask_q[s-1];
        end
      end
      assign scatter_valid  = valid_q[SCATTER_AT-2];
      assign scatter_weight = weight_q[SCATTER_AT-2];
      assign scatter_data   = data_q[SCATTER_AT-2];
      assign scatter_mask   = mask_q[SCATTER_AT-2];
    end

    // ---------------------------------------------------------------- traversals of the lower switch levels
    // at_level[l], l = 1 … SCATTER_AT: arrivals at level l's switches of the beat in stage 0 (one per switch whose
    // slice of a valid lane's mask is non-empty), due l − 1 cycles from now.
    logic [COUNT_W-1:0] at_level[1:SCATTER_AT];
    /* verilator tracing_off */
    always_comb begin
      logic [SLICES-1:0] reached;
      reached = '0;
      for (int l = 1; l <= SCATTER_AT; l++) at_level[l] = '0;
      for (int i = 0; i < DN_BW; i++) begin
        if (stage0_valid[i]) begin
          for (int j = 0; j < SLICES; j++) reached[j] = stage0_mask[i][j*SLICE_W+:SLICE_W] != '0;
          // Level l's switch j covers the scatter level's switches j·2^(SCATTER_AT−l) …: fold the set upwards, in
          // place (level l's switch j is bit j·2^(SCATTER_AT−l)), a few word operations per level.
          for (int l = SCATTER_AT; l >= 1; l--) begin
            at_level[l] = at_level[l] + COUNT_W'($countones(reached));
            reached = (reached | (reached >> (1 << (SCATTER_AT - l)))) & MULTIPLES[SCATTER_AT-l+1];
          end
        end
      end
    end
    /* verilator tracing_on */

    // due[k]: arrivals k+1 cycles from now of beats already past stage 0.
    if (SCATTER_AT == 1) begin : g_no_due
      assign switch_traversals = root_traversals + at_level[1];
    end else begin : g_due
      logic [COUNT_W-1:0] due[SCATTER_AT-1];
      always_ff @(posedge clk) begin
        if (rst) begin
          for (int k = 0; k < SCATTER_AT - 1; k++) due[k] <= '0;
        end else begin
          for (int k = 0; k < SCATTER_AT - 2; k++) due[k] <= due[k+1] + at_level[k+2];
          due[SCATTER_AT-2] <= at_level[SCATTER_AT];
        end
      end
      assign switch_traversals = root_traversals + at_level[1] + due[0];
    end
  end

  // ---------------------------------------------------------------- scatter level, scatter register and split levels
  // The scatter level's output register and the split levels only delay the per-leaf lanes: RING stages, kept as a
  // ring of RING + 1 entries. Each clock the scatter level writes its beat into the entry at `write_at` and the
  // leaves read the entry written RING clocks ago (`read_at`, the next one), so no entry is written and read at
  // the same edge. The scatter writes only the lanes of leaves that receive an element, lane by lane and, in a
  // lane, destination by destination (lowest set mask bit of each CHUNK-bit word first): the work follows the
  // destinations actually present (at most one per leaf), not NUM_MS × DN_BW mask bits; a leaf's data lane holds
  // its last element (stale where `valid` is low). Elements entering the split levels' switches this cycle are
  // the valid lanes of every entry but those two.
  localparam int ENTRIES = RING + 1;
  localparam int POINTER_W = $clog2(ENTRIES);
  logic [NUM_MS-1:0]    valid_ring [ENTRIES];
  logic [NUM_MS-1:0]    weight_ring[ENTRIES];
  logic [DATA_W-1:0]    data_ring  [ENTRIES][NUM_MS];
  logic [COUNT_W-1:0]   count_ring [ENTRIES];  // valid lanes of each entry
  logic [POINTER_W-1:0] write_at, read_at;
  logic [COUNT_W-1:0]   split_traversals;

  assign read_at = 32'(write_at) == ENTRIES - 1 ? '0 : write_at + POINTER_W'(1);

  // Which leaves receive an element, which of those a weight (the later lane wins), and leaves two lanes target.
  logic [NUM_MS-1:0] switched_valid, switched_weight, conflict;
  always_comb begin
    switched_valid  = '0;
    switched_weight = '0;
    conflict        = '0;
    for (int i = 0; i < DN_BW; i++) begin
      if (scatter_valid[i]) begin
        conflict        = conflict | (switched_valid & scatter_mask[i]);
        switched_valid  = switched_valid | scatter_mask[i];
        switched_weight = scatter_weight[i] ? switched_weight | scatter_mask[i] : switched_weight & ~scatter_mask[i];
      end
    end
  end
  assign overflow = |conflict;

  // Written with blocking assignments (a loop cannot delay array writes in Verilator); outside this block only the
  // entry at read_at is read, which this block does not write in the same clock.
  /* verilator lint_off BLKSEQ */
  always_ff @(posedge clk) begin
    logic [CHUNK-1:0]          pending;
    logic [$clog2(NUM_MS)-1:0] leaf;
    if (rst) begin
      for (int s = 0; s < ENTRIES; s++) begin
        valid_ring[s] = '0;
        count_ring[s] = '0;
      end
      write_at <= '0;
    end else begin
      for (int i = 0; i < DN_BW; i++) begin
        if (scatter_valid[i]) begin
          for (int w = 0; w < NUM_MS / CHUNK; w++) begin
            pending = scatter_mask[i][w*CHUNK+:CHUNK];
            while (pending != '0) begin
              // pending ^ (pending − 1): the lowest set bit and the zeros below it
              leaf = $clog2(NUM_MS)'(w * CHUNK + $countones(pending ^ (pending - CHUNK'(1))) - 1);
              data_ring[write_at][leaf] = scatter_data[i];
              pending = pending & (pending - CHUNK'(1));
            end
          end
        end
      end
      valid_ring[write_at]  = switched_valid;
      count_ring[write_at]  = COUNT_W'($countones(switched_valid));
      write_at <= read_at;
    end
    weight_ring[write_at] = switched_weight;
  end
  /* verilator lint_on BLKSEQ */
  always_comb begin
    split_traversals = '0;
    for (int s = 0; s < ENTRIES; s++)
      if (s != 32'(write_at) && s != 32'(read_at)) split_traversals = split_traversals + count_ring[s];
  end
  assign leaf_valid  = valid_ring[read_at];
  assign leaf_weight = weight_ring[read_at];
  assign leaf_data   = data_ring[read_at];
  assign traversals  = switch_traversals + split_traversals;
endmodule
