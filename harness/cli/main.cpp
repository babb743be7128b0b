#include "harness/cli/cli.h"

int main(int argc, char** argv) { return gpubench::run_cli(argc, argv); }
