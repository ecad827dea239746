#include "remote/aws_config.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <string_view>

namespace zt::aws {
namespace {

// An AWS credentials or config file larger than this is not one.
constexpr uint64_t kMaxAwsFileBytes = uint64_t{1} << 20;

using Section = std::map<std::string, std::string>;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return std::string(s);
}

std::string home_dir() {
  if (std::string h = env("HOME"); !h.empty()) return h;
  if (const passwd* pw = getpwuid(getuid()); pw && pw->pw_dir) return pw->pw_dir;
  return "";
}

std::string aws_file(const char* var, const char* name) {
  if (std::string f = env(var); !f.empty()) return f;
  const std::string home = home_dir();
  return home.empty() ? "" : home + "/.aws/" + name;
}

// The section headed [`header`] of an INI file as the AWS tools write it;
// nullopt when the file or the section is absent. Indented lines belong to a
// nested block (e.g. "s3 =" settings) and are skipped.
Result<std::optional<Section>> read_section(const std::string& path, const std::string& header) {
  if (path.empty()) return std::optional<Section>();
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::optional<Section>();
    return Status::from_errno(ErrorCode::io_error, "cannot read '" + path + "'", errno);
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxAwsFileBytes)
    return Status(ErrorCode::limit_exceeded, "'" + path + "' is over 1 MiB: not an AWS credentials or config file");
  std::ifstream in(path);
  if (!in) return Status::from_errno(ErrorCode::io_error, "cannot read '" + path + "'", errno);
  std::optional<Section> found;
  bool inside = false;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == ' ' || line[0] == '\t') continue;
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    if (t.front() == '[' && t.back() == ']') {
      inside = trim(std::string_view(t).substr(1, t.size() - 2)) == header;
      if (inside && !found) found.emplace();
      continue;
    }
    const size_t eq = t.find('=');
    if (inside && eq != std::string::npos) (*found)[trim(std::string_view(t).substr(0, eq))] = trim(t.substr(eq + 1));
  }
  return found;
}

std::string get(const std::optional<Section>& s, const char* key) {
  if (!s) return "";
  auto it = s->find(key);
  return it == s->end() ? "" : it->second;
}

struct Profile {
  std::optional<Section> credentials, config;
};

Result<Profile> read_profile(const std::string& name) {
  const std::string cred_file = aws_file("AWS_SHARED_CREDENTIALS_FILE", "credentials");
  const std::string conf_file = aws_file("AWS_CONFIG_FILE", "config");
  Profile p;
  ZT_ASSIGN_OR_RETURN(p.credentials, read_section(cred_file, name));
  ZT_ASSIGN_OR_RETURN(p.config, read_section(conf_file, name == "default" ? "default" : "profile " + name));
  if (!p.config && name == "default") {
    ZT_ASSIGN_OR_RETURN(p.config, read_section(conf_file, "profile default"));
  }
  return p;
}

// Credentials from the profile: the credentials file first, then the config file.
bool profile_keys(const Profile& p, const std::string& name, S3Access& out) {
  for (const auto* s : {&p.credentials, &p.config}) {
    if (get(*s, "aws_access_key_id").empty()) continue;
    out.key = get(*s, "aws_access_key_id");
    out.secret = get(*s, "aws_secret_access_key");
    out.token = get(*s, "aws_session_token");
    out.source = "profile '" + name + "' (" + (s == &p.credentials ? "credentials" : "config") + " file)";
    return true;
  }
  return false;
}

std::string first_of(std::initializer_list<std::string> values) {
  for (const std::string& v : values)
    if (!v.empty()) return v;
  return "";
}

}  // namespace

Result<S3Access> resolve_s3_access(const RemoteOptions& call) {
  const bool explicit_profile = call.profile.has_value();
  const std::string name = first_of({call.profile.value_or(""), env("AWS_PROFILE"), "default"});
  ZT_ASSIGN_OR_RETURN(Profile profile, read_profile(name));
  const bool named = explicit_profile || !env("AWS_PROFILE").empty();
  if (named && !profile.credentials && !profile.config)
    return Status(ErrorCode::invalid_argument,
                  "AWS profile '" + name + "' is in neither the credentials file (" +
                      aws_file("AWS_SHARED_CREDENTIALS_FILE", "credentials") + ") nor the config file (" +
                      aws_file("AWS_CONFIG_FILE", "config") + ")");
  S3Access a;
  if (call.key.has_value() != call.secret.has_value())
    return Status(ErrorCode::invalid_argument, "the remote options 'key' and 'secret' go together: one is missing");
  if (call.anon.value_or(false)) {
    a.source = "anonymous (anon)";
  } else if (call.key) {
    a.key = *call.key;
    a.secret = *call.secret;
    a.token = call.token.value_or("");
    a.source = "the key option";
  } else if (!explicit_profile && !env("AWS_ACCESS_KEY_ID").empty()) {
    a.key = env("AWS_ACCESS_KEY_ID");
    a.secret = env("AWS_SECRET_ACCESS_KEY");
    if (a.secret.empty())
      return Status(ErrorCode::invalid_argument, "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not");
    a.token = env("AWS_SESSION_TOKEN");
    a.source = "AWS_ACCESS_KEY_ID";
  } else if (!profile_keys(profile, name, a)) {
    a.source = "no credentials found (anonymous request)";
  }
  a.region = first_of({call.region.value_or(""), env("AWS_REGION"), env("AWS_DEFAULT_REGION"),
                       get(profile.config, "region"), kDefaultRegion});
  a.endpoint_url = first_of({call.endpoint_url.value_or(""), env("AWS_ENDPOINT_URL_S3"), env("AWS_ENDPOINT_URL"),
                             get(profile.config, "endpoint_url")});
  return a;
}

}  // namespace zt::aws
