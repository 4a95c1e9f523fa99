// The definitions of the unary element-wise functions and their table rule (see elementwise_functions.hpp).
#include "contracts/elementwise_functions.hpp"

#include <cmath>

#include <fmt/format.h>

namespace maeri::contracts {

namespace {

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

// ln(1 + e^x) without overflow for large x (e^x = ∞ above ~709): x + ln(1 + e^−x).
double softplus(double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }

double hard_sigmoid(double x, double alpha, double beta) { return std::max(0.0, std::min(1.0, alpha * x + beta)); }

}  // namespace

FunctionCall default_call(UnaryFunction function) {
  switch (function) {
#define MAERI_UNARY_FUNCTION_DEFAULTS(id, type, label, onnx, alpha, beta, gamma, uses) \
  case UnaryFunction::id: return {UnaryFunction::id, alpha, beta, gamma};
    MAERI_UNARY_FUNCTIONS(MAERI_UNARY_FUNCTION_DEFAULTS)
#undef MAERI_UNARY_FUNCTION_DEFAULTS
  }
  return {};
}

const char* yaml_type(UnaryFunction function) {
  switch (function) {
#define MAERI_UNARY_FUNCTION_TYPE(id, type, label, onnx, alpha, beta, gamma, uses) \
  case UnaryFunction::id: return type;
    MAERI_UNARY_FUNCTIONS(MAERI_UNARY_FUNCTION_TYPE)
#undef MAERI_UNARY_FUNCTION_TYPE
  }
  return "?";
}

const char* to_string(UnaryFunction function) {
  switch (function) {
#define MAERI_UNARY_FUNCTION_LABEL(id, type, label, onnx, alpha, beta, gamma, uses) \
  case UnaryFunction::id: return label;
    MAERI_UNARY_FUNCTIONS(MAERI_UNARY_FUNCTION_LABEL)
#undef MAERI_UNARY_FUNCTION_LABEL
  }
  return "?";
}

const char* onnx_operator(UnaryFunction function) {
  switch (function) {
#define MAERI_UNARY_FUNCTION_ONNX(id, type, label, onnx, alpha, beta, gamma, uses) \
  case UnaryFunction::id: return onnx;
    MAERI_UNARY_FUNCTIONS(MAERI_UNARY_FUNCTION_ONNX)
#undef MAERI_UNARY_FUNCTION_ONNX
  }
  return "";
}

unsigned parameters_read(UnaryFunction function) {
  switch (function) {
#define MAERI_UNARY_FUNCTION_USES(id, type, label, onnx, alpha, beta, gamma, uses) \
  case UnaryFunction::id: return uses;
    MAERI_UNARY_FUNCTIONS(MAERI_UNARY_FUNCTION_USES)
#undef MAERI_UNARY_FUNCTION_USES
  }
  return 0;
}

std::optional<UnaryFunction> function_of_yaml_type(const std::string& name) {
#define MAERI_UNARY_FUNCTION_BY_TYPE(id, type, label, onnx, alpha, beta, gamma, uses) \
  if (name == type) return UnaryFunction::id;
  MAERI_UNARY_FUNCTIONS(MAERI_UNARY_FUNCTION_BY_TYPE)
#undef MAERI_UNARY_FUNCTION_BY_TYPE
  return std::nullopt;
}

std::optional<UnaryFunction> function_of_onnx_operator(const std::string& op_type) {
  if (op_type.empty()) return std::nullopt;
#define MAERI_UNARY_FUNCTION_BY_ONNX(id, type, label, onnx, alpha, beta, gamma, uses) \
  if (op_type == onnx) return UnaryFunction::id;
  MAERI_UNARY_FUNCTIONS(MAERI_UNARY_FUNCTION_BY_ONNX)
#undef MAERI_UNARY_FUNCTION_BY_ONNX
  return std::nullopt;
}

double unary_value(const FunctionCall& call, double x) {
  const double alpha = call.alpha;
  switch (call.function) {
    case UnaryFunction::Sigmoid: return sigmoid(x);
    case UnaryFunction::Tanh: return std::tanh(x);
    case UnaryFunction::HardSigmoid: return hard_sigmoid(x, alpha, call.beta);
    case UnaryFunction::HardSwish: return x * hard_sigmoid(x, alpha, call.beta);
    case UnaryFunction::LeakyRelu: return x >= 0 ? x : alpha * x;
    case UnaryFunction::Elu: return x >= 0 ? x : alpha * std::expm1(x);
    case UnaryFunction::Selu: return call.gamma * (x > 0 ? x : alpha * std::expm1(x));
    case UnaryFunction::Celu: return std::max(0.0, x) + std::min(0.0, alpha * std::expm1(x / alpha));
    case UnaryFunction::Erf: return std::erf(x);
    case UnaryFunction::Gelu: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case UnaryFunction::GeluTanh:
      return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    case UnaryFunction::Exp: return std::exp(x);
    case UnaryFunction::Log: return std::log(x);
    case UnaryFunction::Sqrt: return std::sqrt(x);
    case UnaryFunction::Reciprocal: return 1 / x;
    case UnaryFunction::Softplus: return softplus(x);
    case UnaryFunction::Softsign: return x / (1 + std::abs(x));
    case UnaryFunction::Mish: return x * std::tanh(softplus(x));
    case UnaryFunction::Swish: return x * sigmoid(alpha * x);
    case UnaryFunction::Neg: return -x;
    case UnaryFunction::Abs: return std::abs(x);
    case UnaryFunction::Pow: return std::pow(x, alpha);
    case UnaryFunction::ThresholdedRelu: return x > alpha ? x : 0.0;
    case UnaryFunction::Floor: return std::floor(x);
    case UnaryFunction::Ceil: return std::ceil(x);
    case UnaryFunction::Round: return std::nearbyint(x);  // the default rounding mode: ties to even, as ONNX's Round
  }
  return 0;
}

double table_value(const FunctionCall& call, double x) {
  const double value = unary_value(call, x);
  return std::isnan(value) ? unary_value(call, 0.0) : value;
}

std::optional<std::string> function_violation(const FunctionCall& call) {
  const unsigned uses = parameters_read(call.function);
  std::string read;
  bool finite = true;
  const auto check = [&](unsigned flag, const char* name, double value) {
    if (!(uses & flag)) return;
    read += fmt::format("{}{} {}", read.empty() ? "" : ", ", name, value);
    finite &= std::isfinite(value);
  };
  check(kUsesAlpha, "alpha", call.alpha);
  check(kUsesBeta, "beta", call.beta);
  check(kUsesGamma, "gamma", call.gamma);
  if (!finite) return fmt::format("{}: the parameters of {} must be finite", read, to_string(call.function));
  if (call.function == UnaryFunction::Celu && call.alpha == 0) return std::string("alpha 0: celu divides by alpha");
  return std::nullopt;
}

}  // namespace maeri::contracts
