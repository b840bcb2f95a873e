#pragma once

// Where a change set is reviewed before anything is written: every file it creates, modifies
// or deletes with its reason and size, a check box to leave it out, the counts of what is
// left, the cells it could not serve and why, and the diff of the current file. Up/Down in
// the list, n/p or Alt+Down/Alt+Up from the diff move file to file. For a deletion this is
// the confirmation. The dialog applies nothing: it gives back the change set with the
// `selected` flags the user left, and whether (and with which message) to commit. For a change
// set Nix can judge (a pin bump), it offers to ask what the change does to each recipe and
// shows the answer per file: the window asks, the dialog shows.

#include "changes/changeset.h"
#include "changes/unifieddiff.h"
#include "eval/changeimpact.h"

#include <QDialog>
#include <map>
#include <memory>
#include <string>
#include <vector>

class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace rg {

class DiffView;

class ChangeSetReviewDialog : public QDialog
{
    Q_OBJECT
public:
    enum Column { PathColumn, KindColumn, AddedColumn, RemovedColumn, NixColumn, ReasonColumn };

    // `diffs` and `stats` are per operation of `changes`, in its order.
    ChangeSetReviewDialog(ChangeSet changes, std::vector<std::string> diffs,
                          std::vector<DiffStat> stats, QWidget* parent = nullptr);

    // The change set with the selection the user left.
    const ChangeSet& changeSet() const { return *m_changes; }
    // The same, shared: a large bump's change set is megabytes, and copying it on the GUI
    // thread when Apply is clicked stalls the window. Once accepted, the dialog no longer
    // changes it.
    std::shared_ptr<const ChangeSet> sharedChangeSet() const { return m_changes; }

    // The "Commit after applying" option, shown only when a commit is possible (a git work
    // tree); the message starts as the change set's commitMessage() and follows the
    // selection until the user edits it. `blocker` says why a commit cannot be made there
    // ("no git identity: …"): the box is then off and disabled, with the reason in its place.
    void setCommitAvailable(bool available, const QString& blocker = {});
    bool commitRequested() const;
    QString commitMessage() const;

    int currentOperation() const; // index into changeSet().operations; -1 when none
    void setCurrentOperation(int index);
    void setOperationSelected(int index, bool selected);
    QString countsText() const; // "41 create · 2 modify · 3 delete"

    QTreeWidget* operationsView() const { return m_operations; }
    QTreeWidget* skippedView() const { return m_skipped; }
    DiffView* diffView() const { return m_diff; }
    QPushButton* applyButton() const { return m_apply; }
    QCheckBox* commitBox() const { return m_commit; }
    QLabel* commitBlockedLabel() const { return m_commitBlocked; }
    QPlainTextEdit* messageEdit() const { return m_message; }

    // Nix's verdict: the button that asks (nixCheckRequested) or, while Nix is asked, stops
    // (nixStopRequested), the Nix column, a summary and the current file's verdict. Hidden
    // until offered.
    void offerNixCheck();
    void showNixProgress(int done, int total);
    // One impact per recipe of the change set; a file without one (not a recipe) shows none.
    void showImpacts(const std::vector<RecipeImpact>& impacts);
    // Nix was not asked to the end: `message` says why ("Stopped before Nix answered.").
    void showNixFailure(const QString& message);
    QPushButton* nixButton() const { return m_nixButton; }
    QLabel* nixSummaryLabel() const { return m_nixSummary; }
    QLabel* nixVerdictLabel() const { return m_nixVerdict; }

signals:
    void nixCheckRequested();
    void nixStopRequested();

private:
    QWidget* createOperationsPane();
    QWidget* createDiffPane();
    QWidget* createCommitPane();
    void fillOperations();
    void fillSkipped();
    void itemChanged(QTreeWidgetItem* item, int column);
    void currentChanged();
    void moveCurrent(int step);
    void selectAll(bool selected);
    void updateCounts();
    void setNixAsking(bool asking);
    void showCurrentVerdict(const std::string& path);

    std::shared_ptr<ChangeSet> m_changes;
    std::vector<std::string> m_diffs;
    std::vector<DiffStat> m_stats;

    QTreeWidget* m_operations = nullptr;
    QLabel* m_counts = nullptr;
    QLabel* m_skippedTitle = nullptr;
    QTreeWidget* m_skipped = nullptr;
    QLabel* m_fileTitle = nullptr;
    QLabel* m_fileReason = nullptr;
    QLabel* m_alsoRemoves = nullptr; // lines a fix takes out beyond its findings, in red
    DiffView* m_diff = nullptr;
    QCheckBox* m_commit = nullptr;
    QLabel* m_commitBlocked = nullptr;
    QPlainTextEdit* m_message = nullptr;
    QPushButton* m_apply = nullptr;
    QPushButton* m_nixButton = nullptr;
    QLabel* m_nixSummary = nullptr;
    QLabel* m_nixVerdict = nullptr;
    bool m_nixAsking = false;
    std::map<std::string, RecipeImpact> m_impacts; // by path, once Nix answered
    bool m_messageEdited = false;
    bool m_settingMessage = false;
};

} // namespace rg
