// URL recognition and the redacted form of a URL that messages show.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace zt {

// Whether `path` names an HTTP(S) URL (case-insensitive scheme).
bool is_http_url(std::string_view path);
// Whether `path` names an s3:// URL (case-insensitive scheme).
bool is_s3_url(std::string_view path);

// The URL without credentials and query (signatures), for messages.
std::string redact_url(std::string_view url);

// `s` with ASCII letters in lower case (schemes, host names, option values).
std::string lower_ascii(std::string_view s);

// `ms` as seconds for messages: "2 s", "0.5 s".
std::string seconds_text(uint32_t ms);

}  // namespace zt
