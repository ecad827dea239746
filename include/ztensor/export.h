/* ZT_API marks a declaration that libztensor.so exports. The library is
 * built with hidden visibility, so its dynamic symbol table holds exactly
 * the declarations marked here, one by one: the C API of ztensor/ztensor.h
 * and the few C++ entry points docs/architecture.md ("ABI") lists. Every
 * other declaration of include/ is C++ API for programs that link the
 * static library (libztensor.a), with no ABI promise. C and C++. */
#ifndef ZTENSOR_EXPORT_H_
#define ZTENSOR_EXPORT_H_

#if defined(__GNUC__) || defined(__clang__)
#define ZT_API __attribute__((visibility("default")))
#else
#define ZT_API
#endif

#endif /* ZTENSOR_EXPORT_H_ */
