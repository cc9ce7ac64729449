// cpp_lambda_loop_O2.cpp - cpp_lambda_loop_O0.cpp at -O2.
// cflags: -O2
// xfail: issue 13 item 3 (lambda capturing a pointer by value in a combined construct)
#include "cpp_lambda_loop_O0.cpp"
