#include "eval/evaluatedrecipe.h"

#include "eval/evalsupport.h"
#include "eval/shellscript.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

namespace rg {

namespace {

using nlohmann::json;

// Nix writes null for what a derivation does not have; the struct keeps "" for it.
using evalsupport::text;

std::vector<std::string> texts(const json& object, const char* key)
{
    std::vector<std::string> out;
    const auto it = object.find(key);
    if (it != object.end() && it->is_array())
        for (const json& item : *it)
            if (item.is_string())
                out.push_back(item.get<std::string>());
    return out;
}

json torchJson(const EvaluatedTorch& torch)
{
    json out = {{"name", torch.name},
                {"version", torch.version},
                {"drvPath", torch.drvPath},
                {"cudaCapabilities", torch.cudaCapabilities},
                {"archListSetting", torch.archListSetting},
                {"preConfigure", torch.preConfigure}};
    out["cudaSupport"] = torch.cudaSupport ? json(*torch.cudaSupport) : json(nullptr);
    return out;
}

EvaluatedTorch torchOf(const json& object)
{
    EvaluatedTorch torch;
    torch.name = text(object, "name");
    torch.version = text(object, "version");
    torch.drvPath = text(object, "drvPath");
    torch.cudaCapabilities = texts(object, "cudaCapabilities");
    torch.archListSetting = text(object, "archListSetting");
    torch.preConfigure = text(object, "preConfigure");
    if (const auto it = object.find("cudaSupport"); it != object.end() && it->is_boolean())
        torch.cudaSupport = it->get<bool>();
    return torch;
}

} // namespace

std::vector<std::string> EvaluatedRecipe::archList() const
{
    const char* name = "TORCH_CUDA_ARCH_LIST";
    // A torch variant's hooks contain its torch's; a package on a torch has hooks of its own.
    for (const auto& [script, setting] : {std::pair{&buildScript, &archListSetting},
                                          std::pair{torch ? &torch->preConfigure : nullptr,
                                                    torch ? &torch->archListSetting : nullptr}}) {
        if (!script)
            continue;
        if (auto value = ShellScript(*script, {{name, *setting}}).valueOf(name))
            return ShellScript::words(*value, true);
        if (!setting->empty())
            return ShellScript::words(*setting, true);
    }
    return {};
}

std::vector<std::string> EvaluatedRecipe::compilerFlags() const
{
    const std::map<std::string, std::string> attributes = {
        {"NIX_CFLAGS_COMPILE", cflagsCompile}, {"CXXFLAGS", cxxFlags}, {"CFLAGS", cFlags}};
    const ShellScript script(buildScript, attributes);
    std::vector<std::string> flags;
    for (const auto& name : {"NIX_CFLAGS_COMPILE", "CXXFLAGS", "CFLAGS"})
        for (std::string& word :
             ShellScript::words(script.valueOf(name).value_or(attributes.at(name)), false))
            if (std::find(flags.begin(), flags.end(), word) == flags.end())
                flags.push_back(std::move(word));
    return flags;
}

json EvaluatedRecipe::toJson() const
{
    json out = {{"path", path},
                {"evaluated", evaluated},
                {"drvPath", drvPath},
                {"outputPath", outPath},
                {"name", name},
                {"pname", pname},
                {"version", version},
                {"system", system},
                {"platforms", platforms},
                {"requiredSystemFeatures", requiredSystemFeatures},
                {"preConfigure", preConfigure},
                {"buildScript", buildScript},
                {"archListSetting", archListSetting},
                {"cxxFlags", cxxFlags},
                {"cFlags", cFlags},
                {"cflagsCompile", cflagsCompile},
                {"pythonVersion", pythonVersion},
                {"cudaVersion", cudaVersion},
                {"cudnnVersion", cudnnVersion},
                {"nixVersion", nixVersion},
                {"evaluatedAt", evaluatedAt}};
    out["torch"] = torch ? torchJson(*torch) : json(nullptr);
    if (!evaluated)
        out["error"] = {{"message", error.message},
                        {"file", error.file},
                        {"line", error.line},
                        {"column", error.column},
                        {"attribute", error.attribute}};
    return out;
}

std::optional<EvaluatedRecipe> EvaluatedRecipe::fromJson(const json& object)
{
    if (!object.is_object())
        return std::nullopt;
    EvaluatedRecipe recipe;
    recipe.path = text(object, "path");
    const auto evaluated = object.find("evaluated");
    // The wrapper's results have no flag: they are only written for what evaluated.
    recipe.evaluated =
        evaluated == object.end() || (evaluated->is_boolean() && evaluated->get<bool>());
    recipe.drvPath = text(object, "drvPath");
    recipe.outPath = text(object, "outputPath");
    recipe.name = text(object, "name");
    recipe.pname = text(object, "pname");
    recipe.version = text(object, "version");
    recipe.system = text(object, "system");
    recipe.platforms = texts(object, "platforms");
    recipe.requiredSystemFeatures = texts(object, "requiredSystemFeatures");
    recipe.preConfigure = text(object, "preConfigure");
    recipe.buildScript = text(object, "buildScript");
    recipe.archListSetting = text(object, "archListSetting");
    recipe.cxxFlags = text(object, "cxxFlags");
    recipe.cFlags = text(object, "cFlags");
    recipe.cflagsCompile = text(object, "cflagsCompile");
    recipe.pythonVersion = text(object, "pythonVersion");
    recipe.cudaVersion = text(object, "cudaVersion");
    recipe.cudnnVersion = text(object, "cudnnVersion");
    recipe.nixVersion = text(object, "nixVersion");
    if (const auto at = object.find("evaluatedAt"); at != object.end() && at->is_number_integer())
        recipe.evaluatedAt = at->get<int64_t>();
    if (const auto torch = object.find("torch"); torch != object.end() && torch->is_object())
        recipe.torch = torchOf(*torch);
    if (const auto error = object.find("error"); error != object.end() && error->is_object()) {
        recipe.error.message = text(*error, "message");
        recipe.error.file = text(*error, "file");
        recipe.error.line = error->value("line", 0);
        recipe.error.column = error->value("column", 0);
        recipe.error.attribute = text(*error, "attribute");
    }
    if (recipe.evaluated && recipe.drvPath.empty())
        return std::nullopt;
    return recipe;
}

} // namespace rg
