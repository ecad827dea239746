// A killed writer leaves no temporary behind: the next writer into
// the folder removes named temporaries whose writer is gone, and only those.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "test_util.h"
#include "common/atomic_file.h"
#include "ztensor/files.h"

namespace zt {
namespace {

pid_t dead_pid() {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;  // reaped: no process has it (until the kernel reuses it)
}

TEST(AtomicFile, NextWriterRemovesStaleTemporariesOfDeadWriters) {
  test::TempDir dir;
  const std::string stale = AtomicFile::temporary_name(dir.file("old.zt"), dead_pid());
  const std::string live = AtomicFile::temporary_name(dir.file("busy.zt"), ::getppid());
  const std::string own = AtomicFile::temporary_name(dir.file("mine.zt"), ::getpid());
  const std::string user = dir.file("notes.tmp-123");  // not our naming
  for (const auto& p : {stale, live, own, user}) test::write_file(p, {1, 2, 3});

  auto f = AtomicFile::create(dir.file("new.zt"));
  ASSERT_TRUE(f.ok()) << f.status().to_string();
  EXPECT_FALSE(std::filesystem::exists(stale));
  EXPECT_TRUE(std::filesystem::exists(live));
  EXPECT_TRUE(std::filesystem::exists(own));
  EXPECT_TRUE(std::filesystem::exists(user));
  ASSERT_TRUE((*f)->write(std::vector<uint8_t>{7, 8}).ok());
  ASSERT_TRUE((*f)->commit().ok());
  EXPECT_EQ(test::read_file(dir.file("new.zt")), (std::vector<uint8_t>{7, 8}));
  EXPECT_EQ(dir.entries(), 4u);  // new.zt, live, own, user: no temporary of new.zt
}

// What `zt` runs on SIGINT/SIGTERM (ztensor/files.h): only this process's
// named temporaries of that destination go.
TEST(AtomicFile, RemoveOwnTemporariesTakesOnlyThisProcesssOfThatFile) {
  test::TempDir dir;
  const std::string own = AtomicFile::temporary_name(dir.file("out.zt"), ::getpid());
  const std::string others = AtomicFile::temporary_name(dir.file("out.zt"), ::getppid());
  const std::string other_file = AtomicFile::temporary_name(dir.file("other.zt"), ::getpid());
  for (const auto& p : {own, others, other_file}) test::write_file(p, {1});
  test::write_file(dir.file("out.zt"), {2});
  remove_own_temporaries(dir.file("out.zt"));
  EXPECT_FALSE(std::filesystem::exists(own));
  EXPECT_TRUE(std::filesystem::exists(others));
  EXPECT_TRUE(std::filesystem::exists(other_file));
  EXPECT_EQ(test::read_file(dir.file("out.zt")), (std::vector<uint8_t>{2}));
}

TEST(AtomicFile, WriteFileAtomicallyReplacesOrLeavesTheDestination) {
  test::TempDir dir;
  ASSERT_TRUE(write_file_atomically(dir.file("a.bin"), std::vector<uint8_t>{1, 2, 3}).ok());
  auto mapped = map_file(dir.file("a.bin"));
  ASSERT_TRUE(mapped.ok()) << mapped.status().to_string();
  EXPECT_EQ(std::vector<uint8_t>(mapped->bytes.begin(), mapped->bytes.end()), (std::vector<uint8_t>{1, 2, 3}));
  Status s = write_file_atomically(dir.file("no-such-folder/a.bin"), std::vector<uint8_t>{4});
  EXPECT_EQ(s.code(), ErrorCode::io_error);
  EXPECT_EQ(dir.entries(), 1u);
  EXPECT_EQ(map_file(dir.file("missing.bin")).status().code(), ErrorCode::io_error);
}

TEST(AtomicFile, AbortLeavesNothingAndKeepsTheDestination) {
  test::TempDir dir;
  test::write_file(dir.file("a.zt"), {1});
  {
    auto f = AtomicFile::create(dir.file("a.zt"));
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->write(std::vector<uint8_t>(3 << 20, 9)).ok());
  }  // destroyed uncommitted
  EXPECT_EQ(dir.entries(), 1u);
  EXPECT_EQ(test::read_file(dir.file("a.zt")), (std::vector<uint8_t>{1}));
}

}  // namespace
}  // namespace zt
