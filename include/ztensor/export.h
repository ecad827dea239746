// ZT_API marks what libztensor.so exports: the declarations of include/.
// Everything else is built with hidden visibility, so the shared library's
// symbol table is its documented interface and nothing more.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define ZT_API __attribute__((visibility("default")))
#else
#define ZT_API
#endif

// Public headers open their declarations with ZT_API_BEGIN and close them
// with ZT_API_END, so every class and function they declare is exported
// without a mark on each.
#if defined(__GNUC__) || defined(__clang__)
#define ZT_API_BEGIN _Pragma("GCC visibility push(default)")
#define ZT_API_END _Pragma("GCC visibility pop")
#else
#define ZT_API_BEGIN
#define ZT_API_END
#endif
