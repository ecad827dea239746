// What a model folder holds, as folder conversion sees it: every entry named
// lexically by its path under the folder, with the policy for symbolic links
// and special files applied before anything is read or written.
//
// - A regular file or a real subfolder is listed as it is.
// - A symbolic link is followed for its content and listed under its own
//   name, whatever its target is called. Its target must be a regular file
//   inside the folder, or, when the folder is a Hugging Face cache snapshot
//   (<repo>/snapshots/<revision>), inside that repo's blobs/ folder. A link
//   leaving the folder otherwise is refused: copying it would put a file
//   from elsewhere on the machine (an SSH key, a token) into the output a
//   user may publish. Links to folders and dangling links are refused too.
// - FIFOs, sockets and devices (direct or behind a link) are refused without
//   being opened: opening a FIFO for reading blocks until a writer appears.
#pragma once

#include <string>
#include <vector>

#include "ztensor/status.h"

namespace zt {

struct FolderEntry {
  std::string rel;     // path under the folder, '/'-separated, no "." or ".." parts
  std::string path;    // the entry as reachable from the caller: folder + "/" + rel
  bool folder = false;  // a real subfolder (links to folders are refused)
  bool top = false;     // directly in the folder (a candidate weights file)
};

// Every entry of `in_dir` in a stable (sorted) order, folders before what
// they hold. `skip` (may be empty) is a folder left out with what it holds:
// the output folder when it lies inside the input. Errors: io_error (cannot
// list, dangling link), invalid_structure (a link leaving the folder),
// unsupported (a special file, a link to a folder).
Result<std::vector<FolderEntry>> scan_model_folder(const std::string& in_dir, const std::string& skip);

}  // namespace zt
