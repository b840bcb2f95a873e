#pragma once

// "What the pins contain", in the Bump Pin dialog: the from- and to-revision's nixpkgs, Python,
// torch, CUDA, cuDNN, NCCL and MAGMA versions side by side, as Nix reads them from each pin,
// the values that change marked. It asks for nothing itself: Compare emits compareRequested()
// and whoever runs Nix answers with showComparison() or showError().

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
    explicit PinContentsPane(QWidget* parent = nullptr);

    // The pins the dialog has chosen; `to` "" while the typed pin does not resolve. Another
    // pair clears an earlier comparison.
    void setPins(const std::string& from, const std::string& to);
    void setInputsEnabled(bool enabled);

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

private:
    bool isCurrent(const std::string& from, const std::string& to) const;
    void updateButton();

    std::string m_from;
    std::string m_to;
    bool m_asking = false;
    bool m_inputsEnabled = true;
    QPushButton* m_compare = nullptr;
    QLabel* m_status = nullptr;
    QTreeWidget* m_tree = nullptr;
};

} // namespace rg
