// Temp-and-rename file writing shared by every command that produces files.
#include "spec/atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "spec/spec_error.hpp"

namespace maeri::spec {

void write_file_atomically(const std::string& path, const std::string& contents) {
  const std::string temporary = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw SpecError({path, 0, 0}, "", std::string("cannot write output file: ") + std::strerror(errno));
    out << contents;
    out.flush();
    if (!out) {
      std::remove(temporary.c_str());
      throw SpecError({path, 0, 0}, "", "cannot write output file (disk full?)");
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(temporary.c_str());
    throw SpecError({path, 0, 0}, "", "cannot move output file into place: " + reason);
  }
}

}  // namespace maeri::spec
