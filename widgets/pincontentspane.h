#pragma once

// What nixpkgs pins contain, as Nix reads them: nixpkgs, Python, torch, CUDA, cuDNN, NCCL and
// MAGMA versions. In the Bump Pin dialog (BothPins) the from- and to-revision side by side, the
// values that change marked; in the Pins dock (OnePin) the chosen pin alone. It asks for
// nothing itself: its button emits compareRequested() (with from == to for one pin) and
// whoever runs Nix answers with showComparison() or showError(); while Nix is asked, the button
// is Stop and emits stopRequested().

#include "eval/pincomparison.h"

#include <QGroupBox>
#include <string>
#include <vector>

class QLabel;
class QPushButton;
class QTreeWidget;

namespace rg {

class PinContentsPane : public QGroupBox
{
    Q_OBJECT
public:
    enum class Mode { BothPins, OnePin };
    explicit PinContentsPane(QWidget* parent = nullptr, Mode mode = Mode::BothPins);

    // The pins the dialog has chosen; `to` "" while the typed pin does not resolve. Another
    // pair clears an earlier comparison.
    void setPins(const std::string& from, const std::string& to);
    // OnePin: the pin to read; "" for none.
    void setPin(const std::string& revision) { setPins(revision, revision); }
    void setInputsEnabled(bool enabled);
    // Asks Nix about the chosen pins, as the button does; nothing while it is already asked or
    // no pin is chosen.
    void ask();

    // Answers for the pair asked for; an answer for another pair (the pins changed meanwhile)
    // is dropped.
    void showComparison(const std::string& from, const std::string& to,
                        const std::vector<PinComparison::Row>& rows);
    void showError(const std::string& from, const std::string& to, const QString& message);

    QPushButton* compareButton() const { return m_compare; }
    QTreeWidget* tree() const { return m_tree; }
    QLabel* statusLabel() const { return m_status; }

signals:
    void compareRequested(const std::string& from, const std::string& to);
    void stopRequested();

private:
    bool isCurrent(const std::string& from, const std::string& to) const;
    void updateButton();
    bool pinsChosen() const;
    void buttonClicked();

    const Mode m_mode;
    std::string m_from;
    std::string m_to;
    bool m_asking = false;
    bool m_inputsEnabled = true;
    QPushButton* m_compare = nullptr;
    QLabel* m_status = nullptr;
    QTreeWidget* m_tree = nullptr;
};

} // namespace rg
