#include "commands.h"

int main(int argc, char** argv) {
  return passtiming::cli::run_cli(argc, argv);
}
