// Does not compile: `undefined_thing` is not declared (line 9). The test
// checks that CompileError names this file and line.
#include <core.p4>
#include <v1model.p4>

control Ing(inout bit<8> x) {
    apply {
        x = 1;
        undefined_thing(x);
    }
}
