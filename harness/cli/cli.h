#pragma once
// The gpubench command line (DESIGN.md, "Command line"). Returns the process exit code.
namespace gpubench {
int run_cli(int argc, char** argv);
}
