list(APPEND STAGHORN_MODEL_SOURCES mhd/mhd.cpp mhd/pencil.cpp mhd/forcing.cpp mhd/initial.cpp mhd/options.cpp)
list(APPEND STAGHORN_MODEL_KERNELS mhd/mhd.cpp)
