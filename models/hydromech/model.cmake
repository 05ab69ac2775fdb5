list(APPEND STAGHORN_MODEL_SOURCES hydromech/hydromech.cpp hydromech/boundary.cpp
     hydromech/initial.cpp hydromech/options.cpp hydromech/config.cpp hydromech/coupled.cpp
     hydromech/coupled_initial.cpp hydromech/coupled_options.cpp)
list(APPEND STAGHORN_MODEL_KERNELS hydromech/hydromech.cpp hydromech/boundary.cpp
     hydromech/coupled.cpp)
