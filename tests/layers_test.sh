#!/bin/bash
# layers_test.sh SRC: the runtime and the CLI launch from the compiler's launch
# descriptor (compiler.h, LdKernel) alone: no file of runtime/ or cli/ names the
# compiler's Nat, NatVar, NatEnv, Kernel, Buffer or HwIds, calls a nat_ function,
# kernel_print or the shared-memory budget functions. (The kernel IR still goes from
# the compilation to codegen, and the typed IR to the interpreter, untouched: neither
# is an evaluation of launch rules.) Fails naming each line that does.
src=${1:?usage: layers_test.sh SOURCE_DIR}
pat='\b(Nat|NatVar|NatEnv|Kernel|Buffer|HwIds)\b|\bnat_[a-z_]+\(|\bkernel_print\b|\bsmem_budget|\bnat\.h\b'
hits=$(grep -nE "$pat" "$src"/runtime/*.c "$src"/runtime/*.h "$src"/cli/*.c "$src"/cli/*.h | grep -v '^[^:]*:[0-9]*: *\(/\*\|\*\)')
if [ -n "$hits" ]; then
  echo "layers_test: the runtime or the CLI uses the compiler's structures (use the launch descriptor, LdKernel):"
  echo "$hits"
  exit 1
fi
echo "layers_test: runtime/ and cli/ name none of Nat, NatVar, NatEnv, Kernel, Buffer, nat_*(), kernel_print, smem_budget"
