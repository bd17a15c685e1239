"""The .rise programs test_cpu.py and test_gpu.py both compile: a kernel of scalar and
array parameters (saxpy) and one of three outputs (minmax)."""

SAXPY = """kernel saxpy = nFun(n =>
  fun(f32)(a => fun(n.f32)(xs => fun(n.f32)(ys =>
    zip(xs)(ys) |> mapGlobal(fun(p => a * fst(p) + snd(p)))))))
"""
MINMAX = """kernel minmax = nFun(m => fun((m * 4).i32)(xs =>
  pair(xs |> split(4) |> mapGlobal(fun(c => c |> reduceSeq(min)(1000))))
      (pair(xs |> split(4) |> mapGlobal(fun(c => c |> reduceSeq(max)(-1000))))
           (xs |> split(4) |> mapGlobal(fun(c => c |> reduceSeq(add)(0)))))))
"""
