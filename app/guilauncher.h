#pragma once

namespace rg {

// The GUI entry: QApplication, command-line options of the window, the main window.
class GuiLauncher
{
public:
    static int run(int argc, char* argv[]);
};

} // namespace rg
