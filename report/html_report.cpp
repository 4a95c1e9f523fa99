// The report page (html_report.hpp): the page's frame, its style sheet and the order of its parts.
#include "report/html_report.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "report/cost_charts.hpp"
#include "report/html_text.hpp"
#include "report/layer_section.hpp"
#include "report/network_graph.hpp"
#include "util/atomic_file.hpp"

namespace maeri::report {
namespace {

constexpr const char* kStyle = R"(
body { font-family: sans-serif; margin: 24px; color: #222; max-width: 1160px; }
h1 { font-size: 22px; } h2 { font-size: 18px; border-bottom: 1px solid #ccc; padding-bottom: 4px; margin-top: 32px; }
h3 { font-size: 16px; margin-bottom: 4px; } .kind { color: #777; font-weight: normal; font-size: 13px; }
section.layer, section.unit-op { border-left: 4px solid #3b7dd8; padding: 2px 12px 8px; margin: 18px 0; }
section.unit-op { border-left-color: #3aa865; }
table { border-collapse: collapse; margin: 8px 0; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; } th { background: #f0f0f0; }
td:first-child, th:first-child, .verdicts td { text-align: left; }
tr.inexact td { background: #fff1c9; } tr.exact td:last-child { color: #2a7a3a; }
.verdict.pass { color: #1d7a33; font-weight: bold; } .verdict.fail { color: #c0261d; font-weight: bold; }
code { background: #f4f4f4; padding: 1px 4px; } p { margin: 4px 0; font-size: 14px; }
svg { display: block; max-width: 100%; height: auto; margin: 6px 0; font-family: sans-serif; }
.network-graph .node rect { stroke: #555; } .network-graph .node.fabric rect { fill: #dce8fa; }
.network-graph .node.unit rect { fill: #dcf2e3; } .network-graph text { text-anchor: middle; font-size: 11px; }
.network-graph text.kind { fill: #666; font-size: 9px; } .network-graph .edge { fill: none; stroke: #555; }
.group-box { fill: none; stroke-width: 2; stroke-dasharray: 6 3; } .network-graph text.group-name { text-anchor: start;
  font-size: 10px; font-weight: bold; }
.fabric .link { stroke: #bbb; } .fabric .dn-switch { fill: #6d7f94; }
.fabric .art-link { stroke: #d77; stroke-dasharray: 3 2; }
.fabric .rn-adder { stroke: #777; stroke-width: 0.5; } .fabric .ms { stroke: #555; stroke-width: 0.5; }
.fabric text { font-size: 10px; } .fabric .vn-id { text-anchor: middle; font-size: 9px; }
.fabric .note { text-anchor: middle; fill: #777; } .fabric .net-label { font-weight: bold; fill: #555; }
.cycle-bars text, .dram-bars text { font-size: 11px; } .row-label { text-anchor: end; } .legend { font-size: 12px; }
)";

std::string hardware_line(const contracts::Hardware& hw) {
  return fmt::format("<p class=\"hardware\">Hardware <b>{}</b>: {} multiplier switches, DN {} and RN {} "
                     "elements/cycle, SDM {} bytes, DRAM {} bytes/cycle after {} cycles, {} MHz.</p>\n",
                     escaped(hw.name), hw.num_ms, hw.dn_bw, hw.rn_bw, number_text(double(hw.sdm_bytes)),
                     number_text(hw.dram_bytes_per_cycle), hw.dram_latency_cycles, number_text(hw.clock_mhz));
}

std::string verdicts_section(const ReportData& data) {
  if (data.verdicts.empty()) return "";
  std::string html = "<section id=\"verdicts\"><h2>Verdicts</h2>\n<table class=\"verdicts\"><tbody>\n";
  for (const Verdict& verdict : data.verdicts)
    html += fmt::format("<tr><td>{}</td><td class=\"verdict {}\">{}</td><td>{}</td></tr>\n", escaped(verdict.subject),
                        verdict.pass ? "pass" : "fail", verdict.pass ? "PASS" : "FAIL", escaped(verdict.message));
  return html + "</tbody></table></section>\n";
}

std::string chart_section(const char* id, const char* heading, const char* explanation, const std::string& svg) {
  if (svg.empty()) return "";
  return fmt::format("<section id=\"{}\"><h2>{}</h2>\n<p>{}</p>\n{}</section>\n", id, heading, explanation, svg);
}

void check_references(const ReportData& data) {
  for (const FusedGroup& group : data.groups)
    for (const std::size_t member : group.members)
      if (member >= data.operators.size())
        throw std::invalid_argument(fmt::format("fused group {} names operator {}, the network has {}", group.name,
                                                member, data.operators.size()));
}

}  // namespace

std::string report_html(const ReportData& data) {
  check_references(data);
  std::string html = fmt::format("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                                 "<title>{0}: {1}</title>\n<style>{2}</style>\n</head>\n<body>\n"
                                 "<h1>{0}: {1}</h1>\n", escaped(data.title), escaped(data.network), kStyle);
  html += hardware_line(data.hardware);
  html += verdicts_section(data);
  if (!data.totals.empty())
    html += "<section id=\"totals\"><h2>Network totals</h2>\n" + metrics_table(data.totals) + "</section>\n";
  html += chart_section("network", "Network",
                        "Operators in graph order, top to bottom; blue runs on the fabric, green on the "
                        "post-processing unit; a dashed box is a fused group. Click an operator for its section.",
                        network_graph_svg(data));
  html += chart_section("cycles", "Where the cycles go",
                        "Per operator: compute, memory stall, configuration and post-processing unit cycles.",
                        cycle_bars_svg(data));
  html += chart_section("dram", "DRAM against compulsory",
                        "Per fabric layer: the bytes it moved between DRAM and the SDM against the compulsory bytes "
                        "(inputs, weights and outputs once).", dram_bars_svg(data));
  html += "<section id=\"layers\"><h2>Layers</h2>\n<p>Each fabric layer's tile drawn on the fabric: the DN tree on "
          "top, the multiplier switches coloured by the virtual neuron (VN) they belong to (grey: idle), the "
          "reduction tree below (an adder coloured like a VN adds only that VN's products; grey adders hold "
          "several VNs' sums apart or join them over the red ART forwarding links).</p>\n";
  for (std::size_t i = 0; i < data.operators.size(); ++i) html += operator_section(data, i);
  return html + "</section>\n</body>\n</html>\n";
}

void write_report(const std::string& path, const ReportData& data) {
  util::write_file_atomically(path, report_html(data));
}

}  // namespace maeri::report
