// Private to core: column names listed in messages.
#pragma once

#include <string>
#include <vector>

namespace assay {

/// "y, p1, p2" for messages; a name that is empty or holds a comma, a quote, a control character
/// (a lone CR from classic Mac line ends) or bytes that are not UTF-8 is quoted and escaped.
std::string join_names(const std::vector<std::string>& names);

}  // namespace assay
