#!/usr/bin/env bash
# Experiment: load flavours of the generated vector load (hand-edited copies of the
# generated kernel, run with patc run --cuda ... --time).
set -u
P=build/cli/patc
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$PWD/build/extra-libs
for cfg in "268435456 528 4096 256" "268435456 1056 2048 128" "16777216 1056 2048 256" "4194304 264 2048 256"; do
  set -- $cfg
  D="-D n=$1 -D g=$2 -D elemsBlock=$3 -D elemsWarp=$4"
  $P --emit-cuda --kernel reduceSumF32 $D examples/reduce_fast.rise > /tmp/base.cu
  pre='static __device__ __forceinline__ float4 ld256(const float4 *p) { float4 v; asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p)); return v; }'
  pre2='static __device__ __forceinline__ float4 ldna(const float4 *p) { float4 v; asm volatile("ld.global.nc.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p)); return v; }'
  sed 's/= \*(const float4 \*)(\(.*\));$/= __ldcs((const float4 *)(\1));/' /tmp/base.cu > /tmp/cs.cu
  { echo "$pre"; sed 's/= \*(const float4 \*)(\(.*\));$/= ld256((const float4 *)(\1));/' /tmp/base.cu; } > /tmp/l2.cu
  { echo "$pre2"; sed 's/= \*(const float4 \*)(\(.*\));$/= ldna((const float4 *)(\1));/' /tmp/base.cu; } > /tmp/na.cu
  for v in base cs l2 na base; do
    o=$($P run examples/reduce_fast.rise --kernel reduceSumF32 $D --input random --cuda /tmp/$v.cu --time --repeat 300 2>&1)
    echo "$cfg $v: $(echo "$o" | grep -i 'median' | head -1) $(echo "$o" | grep -m1 '^value')"
  done
done
