#!/usr/bin/env python3
# instr.py IN.cu OUT.cu: per-block phase timeline of a patc look-back kernel, printed by
# thread 0 at the end (clock64 since the block began; globaltimer at its start)
import sys, re
src = open(sys.argv[1]).read().split('\n')
out = []
state = 0
for i, l in enumerate(src):
    if state == 0 and 'extern __shared__' in l:
        out.append(l)
        out.append('    long long patc_tk[6]; unsigned long long patc_g0; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(patc_g0)); patc_tk[0] = clock64();')
        state = 1; continue
    if state == 1 and 'patc_draw = patc_d;' in l:
        state = 2
    elif state == 2 and '__syncthreads();' in l:
        out.append(l); out.append('patc_tk[1] = clock64();'); state = 3; continue
    elif state == 3 and '__syncthreads();' in l:
        out.append(l); out.append('patc_tk[2] = clock64();'); state = 4; continue
    elif state == 4 and 'look-back: warp 0' in l:
        out.append('patc_tk[3] = clock64();'); out.append(l); state = 5; continue
    elif state == 5 and l.strip() == '__syncthreads();':
        out.append(l); out.append('patc_tk[4] = clock64();'); state = 6; continue
    out.append(l)
assert state == 6, state
# the kernel's closing brace: the last line that is exactly "}"
k = max(i for i, l in enumerate(out) if l == '}')
out.insert(k, '    __syncthreads(); patc_tk[5] = clock64(); unsigned long long patc_g1; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(patc_g1)); if (threadIdx.x == 0) { unsigned int sm; asm("mov.u32 %0, %%smid;" : "=r"(sm)); printf("TL %u %u %u %llu %llu %lld %lld %lld %lld %lld\\n", patc_epoch, (unsigned int)patc_draw, sm, patc_g0, patc_g1, patc_tk[1]-patc_tk[0], patc_tk[2]-patc_tk[0], patc_tk[3]-patc_tk[0], patc_tk[4]-patc_tk[0], patc_tk[5]-patc_tk[0]); }')
open(sys.argv[2], 'w').write('#ifndef __CUDACC_RTC__\n#include <cstdio>\n#endif\n' + '\n'.join(out))
