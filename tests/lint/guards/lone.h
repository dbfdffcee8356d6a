/* planted: no include guard */
struct lint_lone;
