# Kernel benchmark (prints T_eff of one PT iteration beside the measured copy bandwidth).
staghorn_model_tool(bench_stokes_kernels stokes/bench_kernels.cpp)
