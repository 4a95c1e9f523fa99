// The unary element-wise functions the post-processing unit runs by table (OperatorKind::TableFunction): one list
// (MAERI_UNARY_FUNCTIONS) with each function's YAML type, label, ONNX operator and parameter defaults, and the one
// definition of each (unary_value) that the float reference computes and the quantizer's table holds at its scales
// (table_value adds the integer rule for inputs outside the function's domain). docs/quantization.md, "Table
// functions"; docs/workload-spec.md, "Graphs".
#pragma once

#include <optional>
#include <string>

namespace maeri::contracts {

// Which of an operator's function parameters a function reads (and the YAML file states): bit flags.
inline constexpr unsigned kUsesAlpha = 1, kUsesBeta = 2, kUsesGamma = 4;

// X(id, yaml type, label, ONNX op_type, alpha default, beta default, gamma default, parameters read). Defaults are
// ONNX's (Selu's are the float32 constants of the operator's definition). The definitions are unary_value's.
#define MAERI_UNARY_FUNCTIONS(X)                                                                                   \
  X(Sigmoid, "sigmoid", "sigmoid", "Sigmoid", 0, 0, 0, 0u)                         /* 1 / (1 + e^−x)             */ \
  X(Tanh, "tanh", "tanh", "Tanh", 0, 0, 0, 0u)                                     /* tanh x                     */ \
  X(HardSigmoid, "hard_sigmoid", "hard sigmoid", "HardSigmoid", 0.2, 0.5, 0, kUsesAlpha | kUsesBeta)               \
  /* max(0, min(1, αx + β)) */                                                                                     \
  X(HardSwish, "hard_swish", "hard swish", "HardSwish", 1.0 / 6, 0.5, 0, kUsesAlpha | kUsesBeta)                   \
  /* x · max(0, min(1, αx + β)) */                                                                                 \
  X(LeakyRelu, "leaky_relu", "leaky relu", "LeakyRelu", 0.01, 0, 0, kUsesAlpha)    /* x ≥ 0 ? x : αx             */ \
  X(Elu, "elu", "elu", "Elu", 1.0, 0, 0, kUsesAlpha)                               /* x ≥ 0 ? x : α(e^x − 1)     */ \
  X(Selu, "selu", "selu", "Selu", 1.67326319217681884765625, 0, 1.05070102214813232421875,                         \
    kUsesAlpha | kUsesGamma)                                                       /* γ·(x > 0 ? x : α(e^x − 1)) */ \
  X(Celu, "celu", "celu", "Celu", 1.0, 0, 0, kUsesAlpha)            /* max(0, x) + min(0, α(e^(x/α) − 1))        */ \
  X(Erf, "erf", "erf", "Erf", 0, 0, 0, 0u)                                         /* erf x                      */ \
  X(Gelu, "gelu", "gelu", "Gelu", 0, 0, 0, 0u)                                     /* x/2 · (1 + erf(x/√2))      */ \
  X(GeluTanh, "gelu_tanh", "gelu (tanh)", "", 0, 0, 0, 0u)      /* x/2 · (1 + tanh(√(2/π)(x + 0.044715x³)))      */ \
  X(Exp, "exp", "exp", "Exp", 0, 0, 0, 0u)                                         /* e^x                        */ \
  X(Log, "log", "log", "Log", 0, 0, 0, 0u)                                         /* ln x                       */ \
  X(Sqrt, "sqrt", "sqrt", "Sqrt", 0, 0, 0, 0u)                                     /* √x                         */ \
  X(Reciprocal, "reciprocal", "reciprocal", "Reciprocal", 0, 0, 0, 0u)             /* 1 / x                      */ \
  X(Softplus, "softplus", "softplus", "Softplus", 0, 0, 0, 0u)                     /* ln(1 + e^x)                */ \
  X(Softsign, "softsign", "softsign", "Softsign", 0, 0, 0, 0u)                     /* x / (1 + |x|)              */ \
  X(Mish, "mish", "mish", "Mish", 0, 0, 0, 0u)                                     /* x · tanh(ln(1 + e^x))      */ \
  X(Swish, "swish", "swish", "Swish", 1.0, 0, 0, kUsesAlpha)                       /* x · sigmoid(αx) (SiLU: α 1) */ \
  X(Neg, "neg", "neg", "Neg", 0, 0, 0, 0u)                                         /* −x                         */ \
  X(Abs, "abs", "abs", "Abs", 0, 0, 0, 0u)                                         /* |x|                        */ \
  X(Pow, "pow", "pow", "", 2.0, 0, 0, kUsesAlpha)                                  /* x^α (Pow by a constant α)  */ \
  X(ThresholdedRelu, "thresholded_relu", "thresholded relu", "ThresholdedRelu", 1.0, 0, 0, kUsesAlpha)             \
  /* x > α ? x : 0 */                                                                                              \
  X(Floor, "floor", "floor", "Floor", 0, 0, 0, 0u)                                 /* ⌊x⌋                        */ \
  X(Ceil, "ceil", "ceil", "Ceil", 0, 0, 0, 0u)                                     /* ⌈x⌉                        */ \
  X(Round, "round", "round", "Round", 0, 0, 0, 0u)                                 /* nearest, ties to even      */

enum class UnaryFunction {
#define MAERI_UNARY_FUNCTION_ENUM(id, type, label, onnx, alpha, beta, gamma, uses) id,
  MAERI_UNARY_FUNCTIONS(MAERI_UNARY_FUNCTION_ENUM)
#undef MAERI_UNARY_FUNCTION_ENUM
};

// A function with its parameters (those it does not read stay at their defaults).
struct FunctionCall {
  UnaryFunction function = UnaryFunction::Sigmoid;
  double alpha = 0, beta = 0, gamma = 0;
};

// The function with ONNX's default parameters.
FunctionCall default_call(UnaryFunction function);
// The YAML type ("hard_sigmoid"), the label reports print ("hard sigmoid"), the ONNX op_type ("" when no ONNX
// operator is exactly it) and the parameters it reads (kUses* flags).
const char* yaml_type(UnaryFunction function);
const char* to_string(UnaryFunction function);
const char* onnx_operator(UnaryFunction function);
unsigned parameters_read(UnaryFunction function);
// The function a YAML type or an ONNX op_type names, or nullopt.
std::optional<UnaryFunction> function_of_yaml_type(const std::string& type);
std::optional<UnaryFunction> function_of_onnx_operator(const std::string& op_type);

// The real function on one value, as ONNX defines it (NaN outside its domain: log and sqrt of x < 0, a fractional
// power of x < 0; ±∞ at its poles: log 0, 1/0).
double unary_value(const FunctionCall& call, double x);
// What the table holds for x (docs/quantization.md, "Table functions"): unary_value, except that an x outside the
// domain (NaN) takes the value at the domain's edge 0 (sqrt → 0, log → −∞, x^α → 0^α); the quantizer then rounds
// and saturates ±∞ to ±L. Never NaN.
double table_value(const FunctionCall& call, double x);
// Why the call's parameters cannot run (a parameter it reads that is not finite, a Celu α of 0), or nullopt.
std::optional<std::string> function_violation(const FunctionCall& call);

}  // namespace maeri::contracts
