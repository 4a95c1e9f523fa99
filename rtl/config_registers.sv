// Configuration registers behind the config port: the dense configuration of docs/config-bits.md, written one
// CONFIG_BW-bit word per cycle (word w = configuration bits [w·CONFIG_BW +: CONFIG_BW]), so a full configuration
// takes configuration_words(NUM_MS, CONFIG_BW) cycles and any subset of words can be rewritten (partial
// reconfiguration). The configuration is one packed register written CONFIG_BW bits at a time, and every field is a
// constant slice of it. (An unpacked array of words joined by a generate loop made the Verilated model rebuild
// the whole vector by repeated concatenation on every clock, quadratic in the word count.) A write to an address
// past the last word, or one setting the padding bits of the
// last word, is dropped and raises `bad_write` for a cycle. Field values are not range-checked here: maeri_top
// flags a fire with vn_count > NUM_MS, and a collector slot past the last one reads 0 (output_collector).
module config_registers
  import maeri_config_pkg::*;
#(
    parameter int NUM_MS    = 16,
    parameter int CONFIG_BW = 64
) (
    input  logic                                                   clk,
    input  logic                                                   rst,
    input  logic                                                   write,
    input  logic                 [config_address_bits(NUM_MS, CONFIG_BW)-1:0] address,
    input  logic                 [CONFIG_BW-1:0]                   data,
    output mult_switch_config_t  [NUM_MS-1:0]                      mult_config,
    output adder_switch_config_t [NUM_MS-2:0]                      adder_config,
    output logic                 [vn_count_bits(NUM_MS)-1:0]       vn_count,
    output logic                 [NUM_MS-1:0][collector_slot_bits(NUM_MS)-1:0] collector_slots,
    output logic                                                   bad_write,
    output logic                                                   written    // a word was written last cycle
);
  localparam int WORDS = configuration_words(NUM_MS, CONFIG_BW);
  localparam int BITS = configuration_bits(NUM_MS);
  localparam int PADDED = WORDS * CONFIG_BW;
  localparam int LAST_WORD_BITS = BITS - (WORDS - 1) * CONFIG_BW;  // used bits of the last word, 1 … CONFIG_BW

  // The padding bits of the last word are always written as zero; only BITS bits carry fields.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [PADDED-1:0] flat;
  /* verilator lint_on UNUSEDSIGNAL */
  assign mult_config = flat[0+:NUM_MS*$bits(mult_switch_config_t)];
  assign adder_config = flat[adder_fields_lsb(NUM_MS)+:(NUM_MS-1)*$bits(adder_switch_config_t)];
  assign vn_count = flat[vn_count_lsb(NUM_MS)+:vn_count_bits(NUM_MS)];
  assign collector_slots = flat[collector_lsb(NUM_MS)+:NUM_MS*collector_slot_bits(NUM_MS)];

  logic in_map, fits;
  always_comb begin
    in_map = 32'(address) < WORDS;
    fits   = in_map;
    if (LAST_WORD_BITS < CONFIG_BW && 32'(address) == WORDS - 1) fits = in_map && (data >> LAST_WORD_BITS) == '0;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      // (Verilator calls any fill wider than 8 k bits, as at 1024 MS, a suspicious replication.)
      /* verilator lint_off WIDTHCONCAT */
      flat      <= '0;
      /* verilator lint_on WIDTHCONCAT */
      bad_write <= 1'b0;
      written   <= 1'b0;
    end else begin
      bad_write <= write && !fits;
      written   <= write && fits;
      if (write && fits) flat[32'(address)*CONFIG_BW+:CONFIG_BW] <= data;
    end
  end
endmodule
