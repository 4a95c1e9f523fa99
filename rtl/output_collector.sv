// Output collector: when a step's results are complete in the reduction network's emit slots (which hold them
// until the next step's are complete), it drains them onto the RN_BW output lanes in VN order, RN_BW results per cycle, each tagged with its VN id.
// The collector table says which emit slot holds VN k's result. A step with V VNs occupies the lanes for
// ceil(V / RN_BW) cycles; maeri_top spaces fires so that a new step never arrives while one is still draining
// (if it did, `overrun` is raised).
module output_collector
  import maeri_config_pkg::*;
#(
    parameter int NUM_MS = 16,
    parameter int RN_BW  = 4,
    parameter int ACC_W  = 32
) (
    input  logic                                    clk,
    input  logic                                    rst,
    input  logic             [ACC_W-1:0]            slot_value    [2*(NUM_MS-1)],
    input  logic                                    in_wave,
    input  logic             [$clog2(NUM_MS+1)-1:0] vn_count,
    input  logic             [NUM_MS-1:0][$clog2(2*(NUM_MS-1))-1:0] collector_slots,
    output logic             [RN_BW-1:0]            out_valid,
    output logic             [RN_BW-1:0][$clog2(NUM_MS)-1:0] out_vn,
    output logic             [RN_BW-1:0][ACC_W-1:0] out_value,
    output logic                                    draining,
    output logic                                    overrun    // pulse: a step arrived before the last drained
);
  localparam int SLOTS = 2 * (NUM_MS - 1);
  localparam int VN_W = $clog2(NUM_MS);
  localparam int POS_W = $clog2(NUM_MS + RN_BW + 1) + 1;
  localparam int SLOT_W = $clog2(SLOTS);

  logic [POS_W-1:0] position;  // VN id of the next result to put on lane 0
  logic             more_after_this;

  assign more_after_this = (position + POS_W'(RN_BW)) < POS_W'(vn_count);

  always_ff @(posedge clk) begin
    if (rst) begin
      draining <= 1'b0;
      position <= '0;
      overrun  <= 1'b0;
    end else begin
      overrun <= 1'b0;
      if (draining) begin
        position <= position + POS_W'(RN_BW);
        draining <= more_after_this;
      end
      if (in_wave) begin
        overrun  <= draining && more_after_this;
        position <= '0;
        draining <= vn_count != '0;
      end
    end
  end

  // One generate block per lane, so each lane writes a fixed slice of the output vectors.
  for (genvar b = 0; b < RN_BW; b++) begin : g_lane
    logic [POS_W-1:0] vn;
    logic             has_result;
    assign vn         = position + POS_W'(b);
    assign has_result = draining && vn < POS_W'(vn_count) && vn < POS_W'(NUM_MS);
    // The table is read only for a result (an unpacked copy of it would be refreshed on every clock).
    always_ff @(posedge clk) begin
      logic [SLOT_W-1:0] slot;
      if (rst) out_valid[b] <= 1'b0;
      else out_valid[b] <= has_result;
      if (has_result) begin
        out_vn[b] <= VN_W'(vn);
        slot = collector_slots[VN_W'(vn)];
        // A slot beyond the last one cannot come from the compiler; it reads 0 rather than out of range.
        if (32'(slot) < SLOTS) out_value[b] <= slot_value[slot];
        else out_value[b] <= '0;
      end
    end
  end
endmodule
