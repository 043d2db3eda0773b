// How much memory one file may take to decode. The default is half of the machine's memory,
// so a decompression bomb is refused from its header instead of taking the machine down;
// `--memory-budget` sets it, and a batch shares it among its jobs.
#pragma once

#include <QString>

#include <cstdint>
#include <optional>

std::uint64_t machineMemoryBytes();
std::uint64_t defaultMemoryBudget();
// "1.5 GB", "512 MB", "1200 bytes".
QString formatBytes(std::uint64_t bytes);
// "8G", "512M", "64k", "1000000" (decimal units: k, M, G, T; an optional trailing B).
std::optional<std::uint64_t> parseBytes(const QString& text);
