#pragma once

// Where a nixpkgs pin bump is asked for: the pin to move from (one of the pins present), the
// pin to move to (40 hex digits, or a 7+ digit prefix of a pin known from this repository,
// its branches or the compared repositories; checked as it is typed), which recipes (all on
// the pin, the grid's selection, one package, one accelerator), the options (rename
// python3Packages, README, other Markdown documents) and what happens to the hashes the
// fetchers pin: prefetched, or the recipes marked as needing a new one. Never an old hash.
//
// "What the pins contain" (PinContentsPane) compares the two revisions as Nix reads them, on
// request. The dialog downloads nothing: OK with "prefetch" emits prefetchRequested() and shows the
// progress whoever runs PinPrefetcher reports (prefetchStarted / prefetchOutput /
// prefetchFinished); it accepts once every hash arrived, or stays open with the error.

#include "changes/pinbumpplanner.h"
#include "pins/pininventory.h"

#include <QDialog>
#include <map>
#include <string>
#include <vector>

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QRadioButton;

namespace rg {

class PinContentsPane;

class PinBumpDialog : public QDialog
{
    Q_OBJECT
public:
    enum class Scope { All, Selection, Package, Accelerator };
    enum class HashMode { Prefetch, MarkNeedsHash };

    explicit PinBumpDialog(PinInventory inventory, QWidget* parent = nullptr);

    // Pins the to-pin may abbreviate beyond this repository's own (branches, compared
    // repositories); re-checks what is typed.
    void setKnownPins(std::vector<std::string> pins);
    // Cell keys or recipe paths of the grid's selection; "the selection" is offered when any.
    void setSelection(std::vector<std::string> cells);
    void setFromPin(const std::string& revision);
    void setToPin(const QString& text);
    void setScope(Scope scope);
    void setAccelerator(const std::string& acceleratorId);
    void setHashMode(HashMode mode);
    HashMode hashMode() const;
    // Without nix-prefetch-url only marking is possible; `why` says so beside the option.
    void setPrefetchAvailable(bool available, const QString& why = {});

    // The bump as asked for, with the hashes prefetched so far.
    PinBumpRequest request() const;
    bool isValid() const;
    QString validationText() const; // what is wrong, "" when OK can go ahead
    // "66 recipes on 6a030d5 · 66 pin a hash"
    QString scopeSummary() const;

    // Progress of the prefetch, from whoever runs it.
    void prefetchStarted(int index, int total, const QString& url);
    void prefetchOutput(const QString& line);
    // `hashes` by PrefetchTarget::key; with `errors`, the dialog stays open and says why.
    void prefetchFinished(const std::map<std::string, std::string>& hashes,
                          const QStringList& errors);
    bool isPrefetching() const { return m_prefetching; }

    QComboBox* fromCombo() const { return m_from; }
    QLineEdit* toEdit() const { return m_to; }
    QLabel* toStatus() const { return m_toStatus; }
    QRadioButton* scopeButton(Scope scope) const;
    QComboBox* packageCombo() const { return m_package; }
    QComboBox* acceleratorCombo() const { return m_accelerator; }
    QCheckBox* renameBox() const { return m_rename; }
    QCheckBox* readmeBox() const { return m_readme; }
    QCheckBox* docsBox() const { return m_docs; }
    QRadioButton* prefetchButton() const { return m_prefetch; }
    QRadioButton* markButton() const { return m_mark; }
    QProgressBar* progressBar() const { return m_progress; }
    QLabel* progressLabel() const { return m_progressText; }
    QPushButton* stopButton() const { return m_stop; }
    QLabel* errorLabel() const { return m_error; }
    QPushButton* okButton() const;
    PinContentsPane* contentsPane() const { return m_contents; }

signals:
    void prefetchRequested(const rg::PinBumpRequest& request);
    void prefetchCancelRequested();

public slots:
    void accept() override;
    void reject() override;

private:
    QWidget* createPins();
    QWidget* createScope();
    QWidget* createOptions();
    QWidget* createHashes();
    void fillCombos();
    void update();
    std::vector<const PinUse*> usesInScope() const;
    std::string resolvedTo(std::string* error) const;
    void setPrefetching(bool prefetching);

    PinInventory m_inventory;
    std::vector<std::string> m_known;
    std::vector<std::string> m_selection;
    std::map<std::string, std::string> m_hashes;
    bool m_prefetching = false;
    bool m_prefetchAvailable = true;

    QComboBox* m_from = nullptr;
    QLineEdit* m_to = nullptr;
    QLabel* m_toStatus = nullptr;
    QButtonGroup* m_scopes = nullptr;
    QComboBox* m_package = nullptr;
    QComboBox* m_accelerator = nullptr;
    QLabel* m_scopeText = nullptr;
    QCheckBox* m_rename = nullptr;
    QCheckBox* m_readme = nullptr;
    QCheckBox* m_docs = nullptr;
    QRadioButton* m_prefetch = nullptr;
    QRadioButton* m_mark = nullptr;
    QLabel* m_prefetchNote = nullptr;
    QWidget* m_progressRow = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_progressText = nullptr;
    QPushButton* m_stop = nullptr;
    QLabel* m_error = nullptr;
    PinContentsPane* m_contents = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
    QList<QWidget*> m_inputs; // disabled while prefetching
};

} // namespace rg
