#pragma once

// What the evaluation files share: a text field of the JSON Nix writes (null, absent or not a
// string reads as ""), and the Nix expressions shipped as Qt resources (":/eval/…").

#include <QFile>
#include <QString>
#include <nlohmann/json.hpp>
#include <string>

namespace rg::evalsupport {

inline std::string text(const nlohmann::json& object, const char* key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

inline std::string resource(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll().toStdString() : std::string();
}

} // namespace rg::evalsupport
