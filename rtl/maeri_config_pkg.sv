// Types shared by the modules of the MAERI fabric: the configuration fields written through the config port of
// maeri_top, their dense layout, and the indices of its activity counters.
// The configuration layout is described in docs/config-bits.md and in codegen/fabric_config.hpp; the unit test
// "config word layout: …" (tests/unit/test_config_layout.cpp) parses this file and compares every field with the
// C++ side. The activity counters are listed in sim/activity_counters.hpp as well; the unit test "activity
// counters: …" (tests/unit/test_activity_counters.cpp) parses the enum below and compares names, order and count.
// Packed structs list their fields from the most significant bit down; bit 0 is the last field.
package maeri_config_pkg;

  // Multiplier switch field of MS i: bits [2i+1 : 2i] of the configuration.
  typedef struct packed {
    logic take_forward;  // on forwarding steps, use the left neighbour's last operand
    logic active;        // the switch belongs to a VN and multiplies on fire
  } mult_switch_config_t;

  // Adder switch field of adder a in heap order (level l, index j: a = 2^l − 1 + j).
  typedef struct packed {
    logic up;            // send the parity (or combined) token to the parent
    logic emit_right;    // the right token is a finished VN result (emit slot 2a+1)
    logic emit_left;     // the left/combined token is a finished VN result (emit slot 2a)
    logic link_receive;  // add the link partner's token into the facing token
    logic link_send;     // send the facing token over the forwarding link
    logic combine;       // the two children (and a received token) form one token
  } adder_switch_config_t;

  // The dense configuration (docs/config-bits.md): one bit vector, LSB first — NUM_MS multiplier-switch fields,
  // NUM_MS − 1 adder-switch fields, vn_count (VN results per step), then NUM_MS collector entries (the emit slot,
  // 2·adder + side, that holds VN k's result). The config port writes it CONFIG_BW bits per cycle, word w holding
  // bits [w·CONFIG_BW +: CONFIG_BW]. These functions are contracts/config_bus.hpp's formulas; the RTL test
  // "config bus: …" checks the two sides agree on every prebuilt fabric.
  function automatic int vn_count_bits(input int num_ms);
    return $clog2(num_ms + 1);
  endfunction
  function automatic int collector_slot_bits(input int num_ms);
    return $clog2(2 * (num_ms - 1));
  endfunction
  function automatic int adder_fields_lsb(input int num_ms);
    return num_ms * $bits(mult_switch_config_t);
  endfunction
  function automatic int vn_count_lsb(input int num_ms);
    return adder_fields_lsb(num_ms) + (num_ms - 1) * $bits(adder_switch_config_t);
  endfunction
  function automatic int collector_lsb(input int num_ms);
    return vn_count_lsb(num_ms) + vn_count_bits(num_ms);
  endfunction
  function automatic int configuration_bits(input int num_ms);
    return collector_lsb(num_ms) + num_ms * collector_slot_bits(num_ms);
  endfunction
  function automatic int configuration_words(input int num_ms, input int config_bw);
    return (configuration_bits(num_ms) + config_bw - 1) / config_bw;
  endfunction
  function automatic int config_address_bits(input int num_ms, input int config_bw);
    return configuration_words(num_ms, config_bw) > 1 ? $clog2(configuration_words(num_ms, config_bw)) : 1;
  endfunction

  // Activity counters: running totals of the fabric's events since reset or `counters_clear`, the quantities the
  // analytical model predicts. Counter c is element c of maeri_top's `counts` port (counts[COUNT_FIRES] …);
  // docs/rtl.md defines exactly what each one counts.
  localparam int NUM_ACTIVITY_COUNTERS = 8;
  typedef enum logic [$clog2(NUM_ACTIVITY_COUNTERS)-1:0] {
    COUNT_CYCLES          = 0,  // clock cycles
    COUNT_FIRES           = 1,  // fires reaching the multiplier switches (= steps)
    COUNT_MULTIPLICATIONS = 2,  // active switches × fires
    COUNT_ADDITIONS       = 3,  // two-input additions of real operands in adder switches
    COUNT_DN_TRAVERSALS   = 4,  // element-lane arrivals at DN switches
    COUNT_RN_TRAVERSALS   = 5,  // values entering an adder switch
    COUNT_MN_FORWARDS     = 6,  // multiplications whose operand came over a forwarding link
    COUNT_RESULTS         = 7   // results on the output lanes
  } activity_counter_e;

endpackage
