# Time per cell per RK3 step beside the memory and arithmetic bounds.
staghorn_model_tool(bench_mhd mhd/bench_mhd.cpp)
# The stage kernels alone (generic, and tiled on CUDA): no exchange, no boundary shell.
staghorn_model_tool(bench_mhd_stage mhd/bench_mhd_stage.cpp)
