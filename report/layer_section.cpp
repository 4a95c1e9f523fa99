// An operator's section of the report (layer_section.hpp).
#include "report/layer_section.hpp"

#include <fmt/format.h>

#include <cmath>

#include "report/fabric_drawing.hpp"
#include "report/html_text.hpp"

namespace maeri::report {
namespace {

std::string optional_number(const std::optional<double>& value) { return value ? number_text(*value) : "—"; }

std::string error_cell(const MetricRow& row, std::string& row_class) {
  if (!row.model || !row.rtl) return "<td>—</td>";
  if (*row.model == *row.rtl) {
    row_class = "exact";
    return "<td>exact</td>";
  }
  row_class = "inexact";
  if (*row.rtl == 0) return "<td>RTL is 0</td>";
  return fmt::format("<td>{:+.2f} %</td>", 100 * (*row.model - *row.rtl) / std::fabs(*row.rtl));
}

std::string group_of(const ReportData& data, std::size_t index) {
  for (const FusedGroup& group : data.groups)
    for (std::size_t m = 0; m < group.members.size(); ++m)
      if (group.members[m] == index)
        return fmt::format("member {} of {} of fused group <b>{}</b>", m + 1, group.members.size(),
                           escaped(group.name));
  return "";
}

std::string inputs_text(const ReportData& data, const Operator& op) {
  std::string text;
  for (const std::size_t input : op.inputs)
    text += fmt::format("{}<a href=\"#op-{}\">{}</a>", text.empty() ? "" : ", ", input,
                        escaped(data.operators[input].name));
  return text.empty() ? "the network's input" : text;
}

std::string mapping_facts(const contracts::Mapping& mapping, std::int64_t num_ms) {
  const std::int64_t busy = mapping.mapped_ms();
  return fmt::format("<p class=\"mapping\"><code>{}</code></p>\n<p class=\"vn-summary\">VN size {} "
                     "(T_R·T_S·T_C), {} VNs (T_G·T_K·T_N·T_X'·T_Y'), packed from MS 0: {} of {} multiplier "
                     "switches busy, <span class=\"idle-count\">{}</span> idle.</p>\n",
                     escaped(contracts::to_string(mapping)), mapping.vn_size(), mapping.vn_count(), busy, num_ms,
                     num_ms - busy);
}

}  // namespace

std::string metrics_table(const std::vector<MetricRow>& rows) {
  if (rows.empty()) return "";
  std::string html = "<table class=\"metrics\"><thead><tr><th>metric</th><th>model</th><th>RTL</th><th>error</th>"
                     "</tr></thead><tbody>\n";
  for (const MetricRow& row : rows) {
    std::string row_class;
    const std::string error = error_cell(row, row_class);
    html += fmt::format("<tr{}><td>{}</td><td>{}</td><td>{}</td>{}</tr>\n",
                        row_class.empty() ? "" : fmt::format(" class=\"{}\"", row_class), escaped(row.metric),
                        optional_number(row.model), optional_number(row.rtl), error);
  }
  return html + "</tbody></table>\n";
}

std::string operator_section(const ReportData& data, std::size_t index) {
  const Operator& op = data.operators[index];
  std::string html = fmt::format("<section class=\"{}\" id=\"op-{}\">\n<h3>{} <span class=\"kind\">{}</span></h3>\n"
                                 "<p class=\"inputs\">reads: {}</p>\n", op.fabric ? "layer" : "unit-op", index,
                                 escaped(op.name), escaped(op.kind), inputs_text(data, op));
  const std::string group = group_of(data, index);
  if (!group.empty())
    html += fmt::format("<p class=\"group\">{}{}</p>\n", group,
                        op.fabric && !op.fabric->role.empty() ? ": " + escaped(op.fabric->role) : "");
  if (op.fabric) {
    html += fmt::format("<p class=\"shape\">{}</p>\n", escaped(op.fabric->shape));
    html += mapping_facts(op.fabric->mapping, data.hardware.num_ms);
    html += fabric_svg(op.fabric->mapping.tile, data.hardware.num_ms);
  }
  html += metrics_table(op.metrics);
  if (op.cycles)
    html += fmt::format("<p class=\"cycles\">{} cycles: compute {}, memory stall {}, configuration {}, "
                        "post-processing unit {}</p>\n", number_text(op.cycles->total()),
                        number_text(op.cycles->compute), number_text(op.cycles->memory_stall),
                        number_text(op.cycles->configuration), number_text(op.cycles->unit));
  return html + "</section>\n";
}

}  // namespace maeri::report
