# Time per cell per RK3 step beside the memory and arithmetic bounds.
staghorn_model_tool(bench_mhd mhd/bench_mhd.cpp)
