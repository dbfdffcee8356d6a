/* planted: named.h's guard, which does not name this file */
#ifndef MMLAB_LINT_NAMED_H
#define MMLAB_LINT_NAMED_H
#endif
