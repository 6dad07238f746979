#include "autotune/detail/text_table.hpp"

#include <algorithm>

#include "autotune/detail/markdown_text.hpp"

namespace scaletune::autotune::detail {

namespace {

std::string markdown_row(const std::vector<std::string>& cells) {
  std::string line = "|";
  for (const std::string& c : cells) line += " " + markdown_text(c) + " |";
  return line + "\n";
}

std::string padded(const std::string& text, std::size_t width, bool left) {
  const std::string pad(width - std::min(width, text.size()), ' ');
  return left ? text + pad : pad + text;
}

std::string plain_row(const std::vector<std::string>& cells, const std::vector<std::size_t>& width,
                      const std::vector<bool>& left) {
  std::string line;
  for (std::size_t k = 0; k < cells.size(); ++k)
    line += (k ? "  " : "") + padded(cells[k], width[k], left[k]);
  line.erase(line.find_last_not_of(' ') + 1);
  return line + "\n";
}

}  // namespace

std::string to_markdown(const TextTable& table) {
  std::vector<std::string> header;
  std::string rule = "|";
  for (std::size_t k = 0; k < table.header.size(); ++k) {
    const std::string& unit = table.units[k];
    header.push_back(table.header[k] + (unit.empty() ? "" : " (" + unit + ")"));
    rule += k == 0 ? " :--- |" : " ---: |";
  }
  std::string text = markdown_row(header) + rule + "\n";
  for (const auto& row : table.rows) text += markdown_row(row);
  return text;
}

std::string to_plain(const TextTable& table, const std::vector<bool>& left_aligned) {
  std::vector<bool> left = left_aligned;
  if (left.empty()) {
    left.assign(table.header.size(), false);
    if (!left.empty()) left[0] = true;
  }
  std::vector<std::size_t> width(table.header.size(), 0);
  for (const auto* row : {&table.header, &table.units})
    for (std::size_t k = 0; k < row->size(); ++k) width[k] = std::max(width[k], (*row)[k].size());
  for (const auto& row : table.rows)
    for (std::size_t k = 0; k < row.size(); ++k) width[k] = std::max(width[k], row[k].size());
  std::size_t total = 0;
  for (std::size_t w : width) total += w + 2;
  std::string text = plain_row(table.header, width, left) + plain_row(table.units, width, left);
  text += std::string(total > 2 ? total - 2 : 0, '-') + "\n";
  for (const auto& row : table.rows) text += plain_row(row, width, left);
  return text;
}

}  // namespace scaletune::autotune::detail
