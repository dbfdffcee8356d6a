/* a header whose guard names it (scripts/check-header-guards) */
#ifndef MMLAB_LINT_NAMED_H
#define MMLAB_LINT_NAMED_H
#endif
