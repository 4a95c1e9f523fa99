// Multiplier switch: one leaf of MAERI's multiplier network (MN).
// Holds a stationary weight, takes its operand either from the distribution network or from its
// left neighbour's operand register (MAERI's reuse of sliding-window inputs), and sends the
// product, sign-extended or wrapped to ACC_W bits, towards the reduction network one cycle later.
module mult_switch #(
    parameter int DATA_W = 16,
    parameter int ACC_W  = 32
) (
    input  logic              clk,
    input  logic              rst,            // synchronous, active high
    input  logic              weight_load,    // latch weight_in as the stationary weight
    input  logic [DATA_W-1:0] weight_in,
    input  logic              take_forward,   // configuration: operand comes from the left neighbour
    input  logic              dn_valid,
    input  logic [DATA_W-1:0] dn_data,
    input  logic              fwd_in_valid,
    input  logic [DATA_W-1:0] fwd_in_data,
    output logic              fwd_out_valid,  // this switch's operand, offered to the right neighbour
    output logic [DATA_W-1:0] fwd_out_data,
    output logic              product_valid,
    output logic [ACC_W-1:0]  product
);
  logic [DATA_W-1:0] weight_q;
  logic [DATA_W-1:0] operand_q;
  logic              operand_valid_q;

  logic              operand_valid;
  logic [DATA_W-1:0] operand;
  logic [ ACC_W-1:0] product_wrapped;

  assign operand_valid   = take_forward ? fwd_in_valid : dn_valid;
  assign operand         = take_forward ? fwd_in_data : dn_data;
  // Evaluated at ACC_W bits with signed operands: the exact product sign-extended when ACC_W >= 2*DATA_W,
  // otherwise its two's-complement wrap-around, the same arithmetic as the golden model.
  assign product_wrapped = ACC_W'($signed(operand) * $signed(weight_q));

  always_ff @(posedge clk) begin
    if (rst) begin
      weight_q        <= '0;
      operand_q       <= '0;
      operand_valid_q <= 1'b0;
      product_valid   <= 1'b0;
      product         <= '0;
    end else begin
      if (weight_load) weight_q <= weight_in;
      operand_valid_q <= operand_valid;
      product_valid   <= operand_valid;
      if (operand_valid) begin
        operand_q <= operand;
        product   <= product_wrapped;
      end
    end
  end

  assign fwd_out_valid = operand_valid_q;
  assign fwd_out_data  = operand_q;
endmodule
