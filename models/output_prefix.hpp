#pragma once
// The rule of output.prefix, a run key: checked by the schema (models/run_settings.cpp) and again
// by the driver before it names snapshots after it.

#include <string>

namespace staghorn {

// output.prefix must be a plain file name of the characters [A-Za-z0-9._+-], 1 to 200 bytes (room
// for "_STEP.nc.tmp" within a file system's 255), not "." or "..": the ParaView index names
// snapshots in XML and in HDF5 paths (FILE:/VARIABLE), where '&', '<', ':' and others break it.
// Throws ConfigError naming output.prefix and what is wrong.
void check_prefix(const std::string& prefix);
// The same rule as a regular expression (ECMAScript), for the JSON Schema.
extern const char* const kPrefixPattern;

}  // namespace staghorn
