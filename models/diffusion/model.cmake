list(APPEND STAGHORN_MODEL_SOURCES diffusion/diffusion.cpp diffusion/initial.cpp diffusion/options.cpp
  diffusion/rows.cpp)
list(APPEND STAGHORN_MODEL_KERNELS diffusion/diffusion.cpp)
