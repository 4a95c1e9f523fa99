// Writes the HTML report of the sample network (tests/unit/report_sample.hpp) to the file named on the command
// line, for the browser test (tests/cli/report_in_browser.sh).
#include <exception>
#include <iostream>

#include "report/html_report.hpp"
#include "tests/unit/report_sample.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: maeri_make_report_page PAGE.html\n";
    return 1;
  }
  try {
    maeri::report::write_report(argv[1], maeri::test::sample_report());
  } catch (const std::exception& error) {
    std::cerr << error.what() << "\n";
    return 1;
  }
  return 0;
}
