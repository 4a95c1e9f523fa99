// Multiplier network (MN) and augmented reduction tree (RN), described as loops over unpacked arrays in one clocked
// block. Per switch, the behaviour is MAERI's (below); the shape is for the Verilated model: one loop per level
// instead of one instance per switch (a few hundred bytes of per-clock code instead of code per switch), a level
// evaluated only in the cycles a step's values are at its inputs (`wave`), the MN only on a fire or an arriving
// element. Verilator cannot delay array writes inside loops, so the block writes its arrays with blocking
// assignments in an order that reads every value before it is overwritten: the RN from the root down to the leaf
// level (each level reads its children's values of the last clock), then the MN (the leaf level has read the
// products of the last fire), the MN from the rightmost switch down (a switch reads its left neighbour's last
// operand of the last fire). Nothing outside this block reads those arrays.
//
// Multiplier switch i: a stationary weight and an operand register, both loaded from the distribution network,
// multiplied on the pipelined `fire` of a step. On a forwarding step a switch configured with take_forward uses its
// left neighbour's operand of the previous fire instead (MAERI's reuse of sliding-window inputs). An operand
// arriving in the fire cycle is used by that step (bypass), a weight arriving then by the next one. The product is
// the signed product wrapped to ACC_W bits, 0 for a switch that is not active.
//
// Adder switch a (heap order: root 0, children 2a+1 and 2a+2; level l holds a = 2^l − 1 … 2^(l+1) − 2): it adds
// its two children's up-values and, over its forwarding link, a token from the neighbouring adder of its level that
// has a different parent (an odd adder's partner is its right neighbour, an even adder's its left; the first and
// last adder of a level have none). The configuration word says how these form the left and right tokens, which
// token crosses the link (the sender never receives, so a link value depends only on the sender's children: no
// loop), which tokens are finished VN results (emitted) and whether the parity token goes up. Semantics:
// docs/config-bits.md. A result emitted at level l leaves the tree with those of every other level, l cycles later:
// it is written into row (now + l + 1) of the emit rows, where `now` advances every clock and the row of the
// current clock is captured into `slot_value` (slot 2a: left token, 2a+1: right token) when `out_wave` marks a
// step's results complete. Rows are as many as the next power of two above LEVELS, so a row is captured before a
// later step writes it again. Unemitted slots read 0.
// The activity of both networks (multiplications, forwards, operands received, additions) depends only on the
// configuration and is counted by step_activity.sv, not here.
module arithmetic_networks
  import maeri_config_pkg::*;
#(
    parameter int NUM_MS = 16,
    parameter int DATA_W = 16,
    parameter int ACC_W  = 32
) (
    input  logic                                    clk,
    input  logic                                    rst,
    input  logic                                    config_written,  // a configuration word was written last cycle
    input  mult_switch_config_t  [NUM_MS-1:0]       mult_config,
    input  adder_switch_config_t [NUM_MS-2:0]       adder_config,
    // The distribution network's leaves.
    input  logic                 [NUM_MS-1:0]       leaf_valid,
    input  logic                 [NUM_MS-1:0]       leaf_weight,   // 1: the element is a weight, 0: an operand
    input  logic                 [DATA_W-1:0]       leaf_data[NUM_MS],
    input  logic                                    fire,
    input  logic                                    fire_forward,  // this step reuses neighbours' operands
    // The emit slots of the step whose results are complete, held until the next one's (registered).
    output logic                 [ ACC_W-1:0]       slot_value[2*(NUM_MS-1)],
    output logic                                    out_wave,      // slot_value is written at this clock's edge
    output logic                                    in_flight,     // some step is inside the MN or the tree
    // wave[l]: a step's values are at the inputs of level l this cycle (its activity is counted then:
    // step_activity.sv)
    output logic                 [$clog2(NUM_MS)-1:0] wave
);
  localparam int LEVELS = $clog2(NUM_MS);
  localparam int ADDERS = NUM_MS - 1;
  localparam int ROW_W = $clog2(LEVELS + 1);
  localparam int ROWS = 1 << ROW_W;
  localparam int CHUNK = NUM_MS < 64 ? NUM_MS : 64;

  // ---------------------------------------------------------------- the step's position in the tree
  // products_ready: the products of a fire are in the MN's registers (level LEVELS−1 sees them); delayed[k] is
  // that delayed by k+1 cycles.
  logic              products_ready;
  logic [LEVELS-1:0] delayed;
  always_ff @(posedge clk) begin
    if (rst) begin
      products_ready <= 1'b0;
      delayed        <= '0;
    end else begin
      products_ready <= fire;
      delayed[0]     <= products_ready;
      for (int k = 1; k < LEVELS; k++) delayed[k] <= delayed[k-1];
    end
  end
  for (genvar l = 0; l < LEVELS; l++) begin : g_wave
    if (l == LEVELS - 1) begin : g_products
      assign wave[l] = products_ready;
    end else begin : g_delayed
      assign wave[l] = delayed[LEVELS-2-l];
    end
  end
  assign out_wave  = delayed[LEVELS-1];
  assign in_flight = (|delayed) || products_ready;

  // ---------------------------------------------------------------- state
  // Each switch's configuration, unpacked from the packed registers in the cycle after a word is written (the
  // packed registers change at that write's edge, so every clock reads the same configuration as they hold).
  mult_switch_config_t  mult_word [NUM_MS];
  adder_switch_config_t adder_word[ADDERS];
  logic [DATA_W-1:0]    weight_q[NUM_MS], operand_q[NUM_MS], last_operand[NUM_MS];
  logic [ ACC_W-1:0]    product[NUM_MS];
  logic [ ACC_W-1:0]    up_value[ADDERS];
  logic [ ACC_W-1:0]    emit_row[ROWS][2*ADDERS];
  logic [ROW_W-1:0]     now;

  /* verilator lint_off BLKSEQ */  // the arrays above are written and read only here, in the order described on top
  always_ff @(posedge clk) begin
    if (rst) begin
      for (int i = 0; i < NUM_MS; i++) begin
        mult_word[i]    = '0;
        weight_q[i]     = '0;
        operand_q[i]    = '0;
        last_operand[i] = '0;
        product[i]      = '0;
      end
      for (int a = 0; a < ADDERS; a++) begin
        adder_word[a] = '0;
        up_value[a]   = '0;
      end
    end else begin
      if (config_written) begin
        for (int i = 0; i < NUM_MS; i++) mult_word[i] = mult_config[i];
        for (int a = 0; a < ADDERS; a++) adder_word[a] = adder_config[a];
      end
      for (int l = 0; l < LEVELS; l++) if (wave[l]) reduce_level(l);
      if (fire) multiply_all();
      else if (leaf_valid != '0) load_elements();
    end
    now <= rst ? '0 : now + ROW_W'(1);
  end
  /* verilator lint_on BLKSEQ */

  always_ff @(posedge clk) begin
    if (rst) begin
      slot_value <= '{default: '0};
    end else if (out_wave) begin
      slot_value <= emit_row[now];
    end
  end

  // ---------------------------------------------------------------- RN: one level's adders
  /* verilator lint_off BLKSEQ */
  task automatic reduce_level(input int l);
    int                 base, partner, pa;
    logic [ACC_W-1:0]   left, right, partner_left, partner_right, link_term, combined, left_token, right_token;
    logic [ROW_W-1:0]   row;
    base = (1 << l) - 1;
    row  = now + ROW_W'(l + 1);
    for (int j = 0; j < (1 << l); j++) begin
      int a;
      a = base + j;
      partner = j % 2 != 0 ? j + 1 : j - 1;
      if (l == LEVELS - 1) begin
        left  = product[2*j];
        right = product[2*j+1];
      end else begin
        left  = up_value[2*a+1];
        right = up_value[2*a+2];
      end
      link_term = '0;
      if (partner >= 0 && partner < (1 << l)) begin
        pa = base + partner;
        // The partner's link token (the sender never receives: it depends only on the sender's children).
        if (adder_word[a].link_receive && adder_word[pa].link_send) begin
          if (l == LEVELS - 1) begin
            partner_left  = product[2*partner];
            partner_right = product[2*partner+1];
          end else begin
            partner_left  = up_value[2*pa+1];
            partner_right = up_value[2*pa+2];
          end
          if (adder_word[pa].combine) link_term = partner_left + partner_right;
          else link_term = partner % 2 != 0 ? partner_right : partner_left;
        end
      end
      combined = left + right + link_term;
      if (adder_word[a].combine) begin
        left_token  = combined;
        right_token = combined;
      end else begin
        left_token  = left + (j % 2 != 0 ? '0 : link_term);
        right_token = right + (j % 2 != 0 ? link_term : '0);
      end
      up_value[a]            = adder_word[a].up ? (j % 2 != 0 ? left_token : right_token) : '0;
      emit_row[row][2*a]     = adder_word[a].emit_left ? left_token : '0;
      emit_row[row][2*a+1]   = adder_word[a].emit_right ? right_token : '0;
    end
  endtask

  // ---------------------------------------------------------------- MN
  // A fire: every switch multiplies (rightmost first), then takes a weight that arrived with the fire.
  task automatic multiply_all();
    logic [DATA_W-1:0] operand_now;
    for (int i = NUM_MS - 1; i >= 0; i--) begin
      if (fire_forward && mult_word[i].take_forward) operand_now = i == 0 ? '0 : last_operand[i-1];
      else if (leaf_valid[i] && !leaf_weight[i]) operand_now = leaf_data[i];
      else operand_now = operand_q[i];
      operand_q[i]    = operand_now;
      last_operand[i] = operand_now;
      // Signed product evaluated at ACC_W bits: exact when ACC_W >= 2*DATA_W, else its wrap-around.
      product[i]      = mult_word[i].active ? ACC_W'($signed(operand_now) * $signed(weight_q[i])) : '0;
      if (leaf_valid[i] && leaf_weight[i]) weight_q[i] = leaf_data[i];
    end
  endtask

  // No fire: the arriving elements only, lowest set bit of each CHUNK-bit word of leaf_valid first.
  task automatic load_elements();
    logic [CHUNK-1:0]          pending;
    logic [$clog2(NUM_MS)-1:0] i;
    for (int w = 0; w < NUM_MS / CHUNK; w++) begin
      pending = leaf_valid[w*CHUNK+:CHUNK];
      while (pending != '0) begin
        // pending ^ (pending − 1): the lowest set bit and the zeros below it
        i = $clog2(NUM_MS)'(w * CHUNK + $countones(pending ^ (pending - CHUNK'(1))) - 1);
        if (leaf_weight[i]) weight_q[i] = leaf_data[i];
        else operand_q[i] = leaf_data[i];
        pending = pending & (pending - CHUNK'(1));
      end
    end
  endtask
  /* verilator lint_on BLKSEQ */
endmodule
