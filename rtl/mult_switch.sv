// Multiplier switch: one leaf of MAERI's multiplier network (MN). It holds a stationary weight and an operand
// register, both loaded from the distribution network, and multiplies on the global, pipelined `fire` of a step.
// On a forwarding step a switch configured with take_forward uses its left neighbour's operand of the previous
// step instead (MAERI's reuse of sliding-window inputs). An element arriving in the fire cycle is used by that
// step (bypass), so a step's last DN beat and its fire may share a cycle. The product is wrapped to ACC_W bits.
// Its multiplications and forwards are counted from the configuration (step_activity.sv), not switch by switch.
module mult_switch
  import maeri_config_pkg::*;
#(
    parameter int DATA_W = 16,
    parameter int ACC_W  = 32
) (
    input  logic                clk,
    input  logic                rst,           // synchronous, active high
    input  mult_switch_config_t config_word,
    input  logic                dn_valid,
    input  logic                dn_weight,     // 1: the element is a weight, 0: an operand
    input  logic [DATA_W-1:0]   dn_data,
    input  logic                fire,
    input  logic                fire_forward,  // this step reuses neighbours' operands where configured
    input  logic [DATA_W-1:0]   left_last_operand,
    output logic [DATA_W-1:0]   last_operand,  // operand of this switch's last fire, for the right neighbour
    output logic [ ACC_W-1:0]   product        // registered; 0 when inactive
);
  logic [DATA_W-1:0] weight_q;
  logic [DATA_W-1:0] operand_q;
  logic [DATA_W-1:0] operand_now;
  logic              use_forward;
  logic              operand_arrives;

  assign operand_arrives = dn_valid && !dn_weight;
  assign use_forward     = fire_forward && config_word.take_forward;
  assign operand_now     = use_forward ? left_last_operand : (operand_arrives ? dn_data : operand_q);

  always_ff @(posedge clk) begin
    if (rst) begin
      weight_q     <= '0;
      operand_q    <= '0;
      last_operand <= '0;
      product      <= '0;
    end else begin
      if (dn_valid && dn_weight) weight_q <= dn_data;
      if (operand_arrives) operand_q <= dn_data;
      if (fire) begin
        operand_q    <= operand_now;
        last_operand <= operand_now;
        // Signed product evaluated at ACC_W bits: exact when ACC_W >= 2*DATA_W, else its wrap-around.
        product      <= config_word.active ? ACC_W'($signed(operand_now) * $signed(weight_q)) : '0;
      end
    end
  end
endmodule
