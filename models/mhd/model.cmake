list(APPEND STAGHORN_MODEL_SOURCES mhd/mhd.cpp mhd/pencil.cpp mhd/forcing.cpp mhd/initial.cpp mhd/options.cpp)
list(APPEND STAGHORN_MODEL_KERNELS mhd/mhd.cpp)
# The CPU pencil kernel's AVX-512 clone may use FMA: no contraction, so that every clone (and the
# vector loops' scalar remainders) rounds as the generic kernel does (mhd_pencil_parity_test).
set_source_files_properties(mhd/pencil.cpp PROPERTIES COMPILE_OPTIONS -ffp-contract=off)
