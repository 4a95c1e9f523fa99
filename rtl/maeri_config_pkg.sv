// Typed configuration words of the MAERI fabric, as written through the config port of maeri_top.
// The same layout is described in docs/config-bits.md and in codegen/fabric_config.hpp; the test
// config_layout_matches_rtl_package parses this file and compares every field with the C++ side.
// Packed structs list their fields from the most significant bit down; bit 0 is the last field.
package maeri_config_pkg;

  localparam int CONFIG_WORD_W = 16;

  // Multiplier switch word: address i (0 … NUM_MS−1).
  typedef struct packed {
    logic take_forward;  // on forwarding steps, use the left neighbour's last operand
    logic active;        // the switch belongs to a VN and multiplies on fire
  } mult_switch_config_t;

  // Adder switch word: address NUM_MS + a, adder a in heap order (level l, index j: a = 2^l − 1 + j).
  typedef struct packed {
    logic up;            // send the parity (or combined) token to the parent
    logic emit_right;    // the right token is a finished VN result (emit slot 2a+1)
    logic emit_left;     // the left/combined token is a finished VN result (emit slot 2a)
    logic link_receive;  // add the link partner's token into the facing token
    logic link_send;     // send the facing token over the forwarding link
    logic combine;       // the two children (and a received token) form one token
  } adder_switch_config_t;

  // Global word: address 2·NUM_MS − 1.
  typedef struct packed {
    logic [9:0] vn_count;  // VN results per step (collector entries 0 … vn_count−1)
  } global_config_t;

  // Collector entry k: address 2·NUM_MS + k.
  typedef struct packed {
    logic [9:0] slot;  // emit slot (2·adder + side) holding VN k's result
  } collector_entry_t;

endpackage
