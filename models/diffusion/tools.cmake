# Kernel benchmark (prints T_eff per variant beside the measured copy bandwidth).
staghorn_model_tool(bench_diffusion_kernels diffusion/bench_kernels.cpp)
