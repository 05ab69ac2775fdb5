list(APPEND STAGHORN_MODEL_SOURCES hydromech/hydromech.cpp hydromech/boundary.cpp
     hydromech/initial.cpp hydromech/options.cpp)
list(APPEND STAGHORN_MODEL_KERNELS hydromech/hydromech.cpp hydromech/boundary.cpp)
