# Kernel benchmark (prints T_eff per variant beside the measured copy bandwidth).
staghorn_model_tool(bench_hydromech_kernels hydromech/bench_kernels.cpp)
