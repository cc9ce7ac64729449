// cpp_lambda_loop_O2.cpp - cpp_lambda_loop_O0.cpp at -O2.
// cflags: -O2
#include "cpp_lambda_loop_O0.cpp"
