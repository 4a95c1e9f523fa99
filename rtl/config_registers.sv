// Configuration registers behind the config port: one 16-bit word per cycle, addressed (map in
// docs/config-bits.md): multiplier switches 0…M−1, adder switches M…2M−2, global word 2M−1, collector entries
// 2M…3M−1. A full configuration is 3·M writes, i.e. 3·M cycles. A write to an address outside the map or one
// that sets bits no field uses is dropped and raises `bad_write` for a cycle.
module config_registers
  import maeri_config_pkg::*;
#(
    parameter int NUM_MS = 16
) (
    input  logic                                 clk,
    input  logic                                 rst,
    input  logic                                 write,
    input  logic                 [$clog2(3*NUM_MS)-1:0] address,
    input  logic                 [CONFIG_WORD_W-1:0]    data,
    output mult_switch_config_t  [NUM_MS-1:0]    mult_config,
    output adder_switch_config_t [NUM_MS-2:0]    adder_config,
    output logic                 [9:0]           vn_count,
    output collector_entry_t     [NUM_MS-1:0]    collector_table,
    output logic                                 bad_write
);
  localparam int ADDR_W = $clog2(3 * NUM_MS);
  localparam int INDEX_W = $clog2(NUM_MS);
  localparam int MULT_W = $bits(mult_switch_config_t);
  localparam int ADDER_W = $bits(adder_switch_config_t);
  localparam int GLOBAL_W = $bits(global_config_t);
  localparam int ENTRY_W = $bits(collector_entry_t);

  // Which register the address selects, and whether the word fits the field widths of that register.
  logic is_mult, is_adder, is_global, is_entry, fits;
  always_comb begin
    is_mult   = address < ADDR_W'(NUM_MS);
    is_adder  = !is_mult && address < ADDR_W'(2 * NUM_MS - 1);
    is_global = address == ADDR_W'(2 * NUM_MS - 1);
    is_entry  = address >= ADDR_W'(2 * NUM_MS) && address < ADDR_W'(3 * NUM_MS);
    if (is_mult) fits = (data >> MULT_W) == '0;
    else if (is_adder) fits = (data >> ADDER_W) == '0;
    else if (is_global) fits = (data >> GLOBAL_W) == '0 && data <= CONFIG_WORD_W'(NUM_MS);
    else if (is_entry) fits = (data >> ENTRY_W) == '0 && data < CONFIG_WORD_W'(2 * (NUM_MS - 1));
    else fits = 1'b0;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      mult_config     <= '0;
      adder_config    <= '0;
      collector_table <= '0;
      vn_count  <= '0;
      bad_write <= 1'b0;
    end else begin
      bad_write <= write && !fits;
      if (write && fits) begin
        if (is_mult) mult_config[INDEX_W'(address)] <= mult_switch_config_t'(data[MULT_W-1:0]);
        if (is_adder) adder_config[INDEX_W'(address-ADDR_W'(NUM_MS))] <= adder_switch_config_t'(data[ADDER_W-1:0]);
        if (is_global) vn_count <= global_config_t'(data[GLOBAL_W-1:0]);
        if (is_entry) collector_table[INDEX_W'(address-ADDR_W'(2*NUM_MS))] <= collector_entry_t'(data[ENTRY_W-1:0]);
      end
    end
  end
endmodule
