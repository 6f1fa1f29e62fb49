# Included by llama.cpp's own project() call in llama-cpp-python's build (the Makefile's llama-wheel, through
# CMAKE_PROJECT_llama.cpp_INCLUDE). llama-cpp-python forces LLAMA_BUILD_COMMON on; its Python package loads
# only libllama and ggml, never the common library. Turning it off here, after that force and before llama.cpp
# reads it, builds 83 objects instead of 135: about 70 s instead of 140 s on 2 cores.
set(LLAMA_BUILD_COMMON OFF CACHE BOOL "llama.cpp's common library: not loaded by llama-cpp-python" FORCE)
